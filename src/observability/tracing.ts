import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';

/** The service name spans carry unless `OTEL_SERVICE_NAME` says otherwise. */
export const TRACING_SERVICE_NAME = 'research-pipelines';

/** Tracing of a worker: the SDK's OpenTelemetry plugin, and how to flush and stop its exporter. */
export interface WorkerTracing {
  /** Client, workflow and activity interceptors, and the sink that exports workflow spans. */
  plugin: OpenTelemetryPlugin;
  /** Where spans go (OTLP over HTTP), without any credentials the URL held. */
  url: string;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/** Where OTLP/HTTP spans go: the traces endpoint if set, else `/v1/traces` under the general endpoint. */
export function otlpTracesUrl(env: Record<string, string | undefined>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Tracing through `@temporalio/interceptors-opentelemetry` when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, else undefined. Spans of workflow starts, workflow
 * runs (exported through a sink the SDK skips on replay) and activities go to the endpoint over
 * OTLP/HTTP; headers (`OTEL_EXPORTER_OTLP_HEADERS`) are read by the exporter itself.
 */
export function workerTracing(env: Record<string, string | undefined>): WorkerTracing | undefined {
  const url = otlpTracesUrl(env);
  if (url === undefined) return undefined;
  const field = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${field}: must be an http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${field}: must be an http(s) URL, not ${parsed.protocol}`);
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url }));
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || TRACING_SERVICE_NAME });
  // Activity and client spans come from this provider's tracer (no global provider is registered);
  // workflow spans go through the plugin's sink to the same processor.
  // The interceptors carry the trace from a workflow to its activities and children in headers, through
  // the global propagator (a no-op until one is set): W3C trace context, unless the process set another.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // An activity's span is made a child of the context taken from its headers only with a context manager.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  const tracer = provider.getTracer(TRACING_SERVICE_NAME);
  return {
    plugin: new OpenTelemetryPlugin({ resource, spanProcessor, tracer }),
    url: `${parsed.origin}${parsed.pathname}`,
    shutdown: () => provider.shutdown(),
  };
}
