import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WebhookSecretStore } from '../../src/activities';
import { buildIntake, type Intake, type IntakeOptions } from '../../src/intake';
import type { ScenarioEnv } from './scenario-env';

/** What the intake shares with the worker: the webhook secrets it verifies with, and the key of its webhook routes. */
export interface IntakeKeys {
  readonly secrets: WebhookSecretStore;
  readonly intakeKey: string;
}

/** Options of {@link scenarioIntake}: the app tokens and pipelines folder it serves, and any other intake option. */
export type ScenarioIntakeOptions = Pick<IntakeOptions, 'tokens' | 'pipelinesDir'> & Partial<IntakeOptions>;

/**
 * The real intake (`rp intake`'s server) for a scenario: it starts workflows on the scenario's task queue
 * through its client (or `options.client`, in that client's namespace), with request logging off. Not
 * listening yet: inject requests, or call {@link listenOnLoopback}. The caller closes it (`intake.app.close()`).
 */
export async function scenarioIntake(env: Pick<ScenarioEnv, 'client' | 'taskQueue'>, keys: IntakeKeys, options: ScenarioIntakeOptions): Promise<Intake> {
  const client = options.client ?? env.client;
  return buildIntake({
    client,
    secrets: keys.secrets,
    intakeKey: keys.intakeKey,
    taskQueue: env.taskQueue,
    namespace: client.options.namespace,
    logger: false,
    ...options,
  });
}

/** Starts `intake` on a free port on loopback; returns its base URL (`http://127.0.0.1:<port>`). */
export async function listenOnLoopback(intake: Intake): Promise<string> {
  return intake.app.listen({ port: 0, host: '127.0.0.1' });
}

/** A temporary folder holding `<name>.yaml` for each definition, for an intake's `pipelinesDir`. */
export async function pipelinesFolder(definitions: Readonly<Record<string, string>>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-intake-'));
  for (const [name, yaml] of Object.entries(definitions)) await writeFile(path.join(dir, `${name}.yaml`), yaml);
  return dir;
}
