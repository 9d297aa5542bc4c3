import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { itemSource, parsePipelineDefinition, resolveParameters } from '../../src/pipelines';
import type { PipelineRunInput } from '../../src/domain/pipeline-types';
import type { ResearchWorld } from './world';

/** A definition written to a temporary folder (with any input files), turned into a run's input. */
export async function pipelineInput(
  yaml: string,
  world: ResearchWorld,
  options: { files?: Record<string, string>; runKey?: string; set?: Record<string, string> } & Partial<PipelineRunInput> = {},
): Promise<PipelineRunInput> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-pipeline-'));
  for (const [name, body] of Object.entries(options.files ?? {})) await writeFile(path.join(dir, name), body);
  const file = path.join(dir, 'pipeline.yaml');
  await writeFile(file, yaml);
  const loaded = parsePipelineDefinition(yaml, file);
  const { files: _files, set, ...rest } = options;
  return {
    definition: loaded.definition,
    source: itemSource(loaded),
    params: resolveParameters(loaded.definition.parameters, set ?? {}, { textValues: true }),
    polling: world.polling,
    ...rest,
  };
}

export { companies } from '../support/pipeline-runs';
