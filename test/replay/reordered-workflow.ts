import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const WORKFLOWS_DIR = path.join(__dirname, '..', '..', 'src', 'workflows');

/**
 * Writes a copy of the research task workflow in which the task is deleted at the service before its
 * outputs are stored (the order swapped, as a careless edit might), importing everything else from the
 * real sources, and returns the path of a workflows module that registers it. Replaying a recorded
 * history of a task deleted after storing must fail against it.
 */
export async function writeDeleteBeforeStoreWorkflow(dir: string): Promise<string> {
  const source = await readFile(path.join(WORKFLOWS_DIR, 'research-task.ts'), 'utf8');
  const lines = source.split('\n');
  const deleteAt = lines.findIndex((line) => line.includes('deleteAfterStore') && line.includes('deleteResearchTask'));
  // The nearest line before the delete that stores the outputs.
  const storeAt = lines
    .slice(0, Math.max(0, deleteAt))
    .map((line) => line.includes('const outputs = await'))
    .lastIndexOf(true);
  if (deleteAt < 0 || storeAt < 0) throw new Error('research-task.ts no longer has the delete-after-store lines this mutation swaps: update the mutation');
  const [deleteLine] = lines.splice(deleteAt, 1);
  lines.splice(storeAt, 0, deleteLine!);
  // Relative imports point at the real sources, so only the order of these two calls differs.
  const changed = lines
    .join('\n')
    .replace(/from '\.\.\//g, `from '${path.dirname(WORKFLOWS_DIR)}/`)
    .replace(/from '\.\//g, `from '${WORKFLOWS_DIR}/`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'research-task.ts'), changed);
  const index = path.join(dir, 'index.ts');
  await writeFile(index, "export { researchTaskWorkflow } from './research-task';\n");
  return index;
}
