// The research task workflow with one incompatible change: a timer before everything else, as a
// careless edit might add. Replaying a recorded history against it must fail.
import { sleep } from '@temporalio/workflow';
import { researchTaskWorkflow as original } from '../../src/workflows/research-task';
import type { ResearchTaskInput } from '../../src/workflows/types';
import type { ResearchTaskResult } from '../../src/domain/research-types';

/** The changed workflow, registered under the original's name. */
export async function researchTaskWorkflow(input: ResearchTaskInput): Promise<ResearchTaskResult> {
  await sleep('1 second');
  return original(input);
}
