import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pipelineItemWorkflowId, pipelineRunWorkflowId, researchTaskWorkflowId } from '../../src/domain/ids';

// The pipeline run workflow will import these in Temporal's sandbox, where zod and Node built-ins
// cannot load: they may only import types, or each other.
const WORKFLOW_SAFE = ['src/shared/template.ts', 'src/pipelines/step-kind.ts', 'src/pipelines/types.ts'];

describe('modules a pipeline run workflow imports', () => {
  it.each(WORKFLOW_SAFE)('%s has no runtime imports', (file) => {
    const source = readFileSync(path.join(__dirname, '../..', file), 'utf8');
    const runtimeImports = [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)].map((match) => match[1]);
    expect(runtimeImports).toEqual([]);
  });
});

describe('pipeline workflow ids', () => {
  it('names an item by pipeline, run and key, as its research task workflow', () => {
    expect(pipelineItemWorkflowId('competitor-scan', '2026-w48', 'acme')).toBe('research-task/competitor-scan/2026-w48/acme');
    expect(pipelineItemWorkflowId('p', 'r', 'k')).toBe(researchTaskWorkflowId({ pipeline: 'p', run: 'r', item: 'k' }));
  });

  it('names a run by pipeline and run key, the same each time', () => {
    expect(pipelineRunWorkflowId('competitor-scan', '2026 w48')).toBe('pipeline-run/competitor-scan/2026-w48');
    expect(pipelineRunWorkflowId('a', 'b')).not.toBe(pipelineRunWorkflowId('a', 'c'));
  });
});
