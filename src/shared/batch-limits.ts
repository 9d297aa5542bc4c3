/**
 * Task features a service batch cannot use, by request field, with how to name them in an error. Shared
 * by the API schemas and the batch workflow (which cannot run zod), so both refuse the same fields.
 */
export const NOT_IN_BATCHES: Readonly<Record<string, string>> = {
  hitl: 'checkpoints (hitl)',
  deliverables: 'deliverables',
  files: 'files',
  mcp_servers: 'MCP servers',
  previous_reports: 'previous reports',
};

/** Why `field` cannot be in a batch, or undefined when it may. */
export function batchLimitProblem(field: string): string | undefined {
  const what = NOT_IN_BATCHES[field];
  return what === undefined ? undefined : `batch tasks cannot use ${what}`;
}
