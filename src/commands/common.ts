import type { Client } from '@temporalio/client';
import { loadPipelineDefinition, ParameterError, parseSetArguments, PipelineDefinitionError } from '../pipelines';
import { UsageError } from '../shared/usage';

/** Where the commands write: the result on stdout, progress and human messages on stderr. */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A Temporal client for the commands, and what closes it. */
export interface TemporalAccess {
  client: Client;
  taskQueue: string;
  close(): Promise<void>;
  /** Where the Temporal UI of this service is (see `temporalUiBase`), when known. */
  uiUrl?: string;
}

/**
 * The Temporal UI of the service at `address`: `TEMPORAL_UI_URL` when set; else, for a server on this
 * machine, the dev server's own UI (`temporal server start-dev` serves it on the gRPC port + 1000);
 * else unknown (a remote service's UI lives where its operators put it).
 */
export function temporalUiBase(env: Readonly<Record<string, string | undefined>>, address: string): string | undefined {
  const given = env.TEMPORAL_UI_URL?.trim();
  if (given) return given.replace(/\/+$/, '');
  const local = /^(localhost|127\.0\.0\.1|\[::1\]):(\d+)$/.exec(address.trim());
  if (!local) return undefined;
  const port = Number(local[2]) + 1000;
  return port <= 65_535 ? `http://${local[1]}:${port}` : undefined;
}

/** A workflow's page in the Temporal UI. */
export function workflowUiLink(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** Opens the client the commands use (the Temporal connection settings, TEMPORAL_TASK_QUEUE). */
export type TemporalOpener = () => Promise<TemporalAccess>;

/** The client of the configured Temporal service (see README, Configuration). */
export const openConfiguredTemporal: TemporalOpener = async () => {
  const [{ Client, Connection }, { loadConfig }, { dataConverterFromConfig }, { connectionSecurityOptions }] = await Promise.all([
    import('@temporalio/client'),
    import('../config'),
    import('../codec'),
    import('../temporal/connection-options'),
  ]);
  const config = loadConfig();
  const connection = await Connection.connect({ address: config.temporal.address, ...connectionSecurityOptions(config.temporal.security) }).catch(
    (error: unknown) => {
      throw new Error(
        `cannot reach Temporal at ${config.temporal.address} (set TEMPORAL_ADDRESS or a temporal.toml profile; rp worker and rp dev need one too): ${(error as Error).message}`,
        { cause: error },
      );
    },
  );
  // The same data converter as the worker's: with PAYLOAD_CODEC_KEYS set, arguments are encrypted.
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: dataConverterFromConfig(config) });
  const uiUrl = temporalUiBase(process.env, config.temporal.address);
  return { client, taskQueue: config.temporal.taskQueue, close: () => connection.close(), ...(uiUrl ? { uiUrl } : {}) };
};

/** Runs `act` with a client, closing it after. */
export async function withTemporal<T>(open: TemporalOpener, act: (client: Client, taskQueue: string) => Promise<T>): Promise<T> {
  const temporal = await open();
  try {
    return await act(temporal.client, temporal.taskQueue);
  } finally {
    await temporal.close();
  }
}

/** One JSON document, as `--json` prints it. */
export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** What `--json` prints on stdout when a command fails: `{"error": {...}}`, with the exit code saying how. */
export interface JsonError {
  error: {
    /** usage: bad command line (exit 2); config: bad environment; definition: an invalid pipeline file; refused: Temporal or the workflow said no; failed: anything else. */
    kind: 'usage' | 'config' | 'definition' | 'refused' | 'failed';
    message: string;
    /** The definition's issues (`definition`), or the bad variables (`config`). */
    issues?: readonly unknown[];
  };
}

/** The result: JSON with `--json`, the text otherwise. */
export function printResult(io: CommandIo, options: { json?: boolean }, value: unknown, text: string): void {
  io.stdout(options.json ? json(value) : text);
}

/**
 * A failure the command reports itself (exit code 1): with `--json` the one JSON document on stdout, else
 * `text` (the message by default) on stderr.
 */
export function printFailure(io: CommandIo, options: { json?: boolean }, error: JsonError['error'], text = `${error.message}\n`): number {
  if (options.json) io.stdout(json({ error } satisfies JsonError));
  else io.stderr(text);
  return 1;
}

/** A definition file that is missing or a directory: reported like an invalid one. */
export const isMissingFile = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' || (error as NodeJS.ErrnoException | undefined)?.code === 'EISDIR';

/** Why a definition file cannot be used, as `--json` reports it (the issues have file, line, column, path, message). */
export function definitionFailure(file: string, error: unknown): JsonError['error'] {
  if (error instanceof PipelineDefinitionError) return { kind: 'definition', message: error.message, issues: error.issues };
  return { kind: 'definition', message: `${file}: ${(error as Error).message}` };
}

/**
 * The `--set` overrides (bad ones are bad usage) and the loaded definition of `rp run`; a definition that
 * cannot be read or is invalid is printed and gives exit code 1.
 */
export async function openRunArguments(
  file: string,
  set: readonly string[] | undefined,
  io: CommandIo,
  options: { json?: boolean } = {},
): Promise<{ loaded: Awaited<ReturnType<typeof loadPipelineDefinition>>; overrides: Record<string, string> } | number> {
  let overrides: Record<string, string>;
  try {
    overrides = parseSetArguments([...(set ?? [])]);
  } catch (error) {
    if (error instanceof ParameterError) throw new UsageError(error.message);
    throw error;
  }
  try {
    return { loaded: await loadPipelineDefinition(file), overrides };
  } catch (error) {
    if (!(error instanceof PipelineDefinitionError) && !isMissingFile(error)) throw error;
    return printFailure(io, options, definitionFailure(file, error));
  }
}
