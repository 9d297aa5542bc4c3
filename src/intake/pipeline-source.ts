import { access } from 'node:fs/promises';
import path from 'node:path';
import { loadPipelineDefinition, PipelineDefinitionError, type LoadedPipeline } from '../pipelines/load';
import { IntakeError } from './errors';

/** Pipeline names the intake looks up: a file name without dots or slashes, so no request can name a path outside the directory. */
export const PIPELINE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/**
 * Loads pipeline `<name>` from `<dir>/<name>.yaml` (or `.yml`), read afresh on each start so an edited
 * definition takes effect without a restart. 404 when there is none; 500 naming the file and the issues
 * when the definition on disk is invalid (the caller cannot fix that).
 */
export async function loadNamedPipeline(dir: string, name: string): Promise<LoadedPipeline> {
  for (const extension of ['.yaml', '.yml']) {
    const file = path.join(path.resolve(dir), `${name}${extension}`);
    if (
      !(await access(file).then(
        () => true,
        () => false,
      ))
    )
      continue;
    let loaded: LoadedPipeline;
    try {
      loaded = await loadPipelineDefinition(file);
    } catch (error) {
      if (error instanceof PipelineDefinitionError) throw new IntakeError(500, `pipeline definition ${name} is invalid:\n${error.message}`, 'pipeline_invalid');
      throw error;
    }
    if (loaded.definition.name !== name)
      throw new IntakeError(
        500,
        `pipeline file ${name}${extension} names the pipeline "${loaded.definition.name}"; the file name and the name must agree`,
        'pipeline_invalid',
      );
    return loaded;
  }
  throw new IntakeError(404, `no pipeline named ${name} in the intake's pipelines directory`, 'pipeline_not_found');
}
