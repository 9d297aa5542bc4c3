import { estimateItem } from '../pipelines/estimate';
import { renderSynthesisRequest, type ItemRequest } from '../pipelines/render-item';
import type { ActivityDeps } from './deps';
import { invalidInput } from './errors';
import { eachItem } from './pipeline-item-views';
import { runContext, type PipelineRunRef } from './pipeline-items';
import type { ArtifactStore } from './store';

/** `preparePipelineSynthesis` input. */
export type PreparePipelineSynthesisInput = PipelineRunRef;

/**
 * The synthesis request with the collected results attached to its query: each completed item's
 * structured output or the start of its report, within the route's query limit.
 */
export async function preparePipelineSynthesis(
  store: ArtifactStore,
  input: PreparePipelineSynthesisInput,
): Promise<{ request: ItemRequest; reserveUsd: number }> {
  const rendered = renderSynthesisRequest(input.definition, runContext(input));
  if (!rendered || (rendered.kind !== 'answer' && rendered.kind !== 'deepresearch')) throw invalidInput('the definition has no synthesis step');
  const query = rendered.request.query ?? '';
  const room = (rendered.kind === 'deepresearch' ? 25_000 : 20_000) - query.length - 200;
  const parts: string[] = [];
  let used = 0;
  await eachItem(store, input, async (view) => {
    if (view.status !== 'completed' || used >= room) return;
    let body = view.output !== undefined ? (typeof view.output === 'string' ? view.output : JSON.stringify(view.output)) : '';
    if (!body && view.report)
      body = Buffer.from(await store.get(view.report.key))
        .toString('utf8')
        .slice(0, 2_000);
    const part = `### ${view.key}\n${body.slice(0, 2_000)}`;
    parts.push(part.slice(0, room - used));
    used += part.length + 2;
  });
  const attached = `${query}\n\nResults of the ${parts.length} items:\n\n${parts.join('\n\n')}`;
  const request: ItemRequest =
    rendered.kind === 'answer'
      ? { kind: 'answer', request: { ...rendered.request, query: attached } }
      : { kind: 'deepresearch', request: { ...rendered.request, query: attached } };
  const estimate = estimateItem(request);
  return { request, reserveUsd: Math.max(estimate.usd, estimate.maxUsd) };
}

/** The activity that prepares a run's synthesis request from its results. */
export function pipelineSynthesisActivities({ store }: ActivityDeps) {
  return { preparePipelineSynthesis: (input: PreparePipelineSynthesisInput) => preparePipelineSynthesis(store, input) };
}
