import { execFileSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { InMemoryWebhookSecretStore } from '../../src/activities';
import { signWebhook, webhookRouteToken } from '../../src/api';
import { buildIntake, type Intake, type IntakeOptions } from '../../src/intake';

export const INTAKE_KEY = 'ik_test_0123456789abcdef0123456789abcdef';
export const TOKEN = 'app-token-0123456789abcdef';
export const SECRET = 'a'.repeat(64);

/** A client whose Temporal never answers (nothing listens on port 1): the intake must still start and refuse bad input. */
export function unreachableTemporal(): { client: Client; close(): Promise<void> } {
  const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 });
  return { client: new Client({ connection }), close: () => connection.close().catch(() => undefined) };
}

/** An intake on `client` with a secret kept for task `tsk_1`. */
export async function intakeWith(client: Client, options: Partial<IntakeOptions> = {}): Promise<Intake & { secrets: InMemoryWebhookSecretStore }> {
  const secrets = new InMemoryWebhookSecretStore();
  await secrets.put('tsk_1', SECRET);
  const intake = await buildIntake({
    client,
    secrets,
    intakeKey: INTAKE_KEY,
    tokens: [TOKEN],
    pipelinesDir: 'pipelines',
    taskQueue: 'q',
    namespace: 'default',
    logger: false,
    temporalTimeoutMs: 1_000,
    ...options,
  });
  return { ...intake, secrets };
}

/** A signed delivery for `workflowId`: URL with its route token, body and headers. */
export function delivery(
  workflowId: string,
  body: unknown = { event: 'task.completed', deepresearch_id: 'tsk_1', status: 'completed' },
  options: { secret?: string; timestamp?: number } = {},
) {
  const payload = JSON.stringify(body);
  const signed = signWebhook({ secret: options.secret ?? SECRET, body: payload, ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}) });
  return {
    url: `/webhooks/research/${encodeURIComponent(workflowId)}/${webhookRouteToken(INTAKE_KEY, workflowId)}`,
    payload,
    headers: { 'content-type': 'application/json', ...signed.headers },
  };
}

/** Checks an OpenAPI document with @seriousme/openapi-schema-validator (an ES module, so in a child process). */
export function validateOpenApi(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `import { Validator } from '@seriousme/openapi-schema-validator';
let text = ''; for await (const chunk of process.stdin) text += chunk;
const result = await new Validator().validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify(document), cwd: process.cwd() }).toString(),
  ) as { valid: boolean; errors?: unknown };
}
