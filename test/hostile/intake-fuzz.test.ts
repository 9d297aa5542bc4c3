import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { signWebhook, webhookRouteToken } from '../../src/api';
import { describeScenarios } from '../support/scenario-env';
import { listenOnLoopback, pipelinesFolder, scenarioIntake } from '../support/scenario-intake';
import { makeWorld, researchSetup, type ResearchWorld } from '../scenarios/world';

// Random and mutated requests against every intake route, over real HTTP on loopback, bounded in count
// and time. What must hold: no 5xx (Temporal is up), the process answers /healthz at the end, memory
// stays bounded, and no secret (the app token, INTAKE_KEY, a webhook secret) comes back in a body.
const TOKEN = 'app-token-FUZZ-0123456789abcdef';
const REQUESTS = 1_500;
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

/** mulberry32: small, seeded, good enough to pick mutations reproducibly. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describeScenarios('hostile input: a fuzz pass over every intake route', researchSetup, (getEnv) => {
  let world: ResearchWorld | undefined;
  afterEach(async () => world?.close());

  it(`answers ${REQUESTS} random and mutated requests without a 5xx, a crash, unbounded memory or a leaked secret`, async () => {
    const env = getEnv();
    world = await makeWorld(env, { emulator: { defaultCreditsUsd: 1_000 } });
    const pipelinesDir = await pipelinesFolder({
      brief: `
name: brief
parameters:
  region: { type: string, default: EU }
  limit: { type: integer, default: 2 }
input:
  items: [Acme]
  key: "{{ item | slug }}"
step:
  answer:
    query: "Headcount of {{ item }} in {{ params.region }}"
start_rate_per_second: 50
budget_usd: 5
`,
    });
    const intake = await scenarioIntake(env, world, { tokens: [TOKEN], pipelinesDir });
    const base = await listenOnLoopback(intake);
    const webhookSecret = `whsec_fuzz_${randomUUID()}`;
    await world.secrets.put('task-fuzz-1', webhookSecret);
    const secrets = [TOKEN, world.intakeKey, webhookSecret];
    const random = prng(SEED);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const text = (length: number) => Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x2fff))).join('');
    // Header values may hold visible ASCII and Latin-1 bytes (what a client can send at all).
    const headerText = (length: number) =>
      Array.from({ length }, () => String.fromCharCode(pick([0x21 + Math.floor(random() * 94), 0xa0 + Math.floor(random() * 96)]))).join('');
    const valid = [
      { params: { region: 'US', limit: 3 } },
      { params: {} },
      {},
      { item: 'acme' },
      { interactionId: 'i1', response: { approved: true } },
      { event: 'task.completed', deepresearch_id: 'task-fuzz-1', status: 'completed', delivery_id: 'd1' },
    ];
    const mutate = (value: unknown): string => {
      const json = JSON.stringify(value);
      switch (Math.floor(random() * 12)) {
        case 0:
          return json.slice(0, Math.floor(random() * json.length));
        case 1:
          return json.replace(/[{}[\]":,]/, () => pick(['', '{', ']', '"', '\\', '\u0000']));
        case 2:
          return `${'['.repeat(200)}${']'.repeat(200)}`;
        case 3:
          return JSON.stringify({ params: { region: text(20_000) } });
        case 4:
          return JSON.stringify({ params: { limit: pick([Number.POSITIVE_INFINITY, -0, 9_223_372_036_854_775_807n.toString(), 'NaN', null, [], {}]) } });
        case 5:
          return Buffer.from(Array.from({ length: 200 }, () => Math.floor(random() * 256))).toString('latin1');
        case 6:
          return JSON.stringify({ params: { ['__proto__']: { polluted: true }, constructor: 'x', toString: 1 } });
        case 7:
          return JSON.stringify(pick([null, 1, 'x', [], true]));
        case 8:
          return JSON.stringify({ ...(value as object), extra: text(10) });
        case 9:
          return '';
        case 10:
          return JSON.stringify({ response: { answers: Array.from({ length: 500 }, () => text(5)) }, interactionId: text(300) });
        default:
          return json;
      }
    };
    const segment = () => pick(['brief', 'nope', 'order-1', text(3), '..', '%2e%2e', '%00', 'a'.repeat(3_000), encodeURIComponent(text(8)), '']);
    const statuses = new Map<number, number>();
    let rightFourXx = 0;
    let invalid = 0;
    let leaked: string[] = [];
    const clientErrors = new Set<string>();
    let peakRss = process.memoryUsage().rss;
    const rssBefore = peakRss;
    const started = Date.now();
    for (let index = 0; index < REQUESTS && Date.now() - started < 90_000; index++) {
      const route = pick(['start', 'status', 'cancel', 'checkpoint', 'webhook', 'health', 'random'] as const);
      const authorised = random() < 0.6;
      const headers: Record<string, string> = {
        'content-type': pick(['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16']),
      };
      if (authorised) headers.authorization = `Bearer ${TOKEN}`;
      else if (random() < 0.5)
        headers.authorization = pick([`Bearer ${headerText(10)}`, 'Basic YWxhZGRpbjpvcGVuc2VzYW1l', 'Bearer', `Bearer ${TOKEN.slice(0, -1)}`]);
      let method: 'GET' | 'POST' | 'DELETE' | 'PUT' = 'POST';
      let url: string;
      let body: string | undefined = mutate(pick(valid));
      switch (route) {
        case 'start':
          url = `/pipelines/${pick(['brief', 'brief', segment()])}/runs`;
          headers['idempotency-key'] = pick(['order-1', 'order-2', 'order-3', headerText(12), 'k'.repeat(5_000)]);
          break;
        case 'status':
          method = 'GET';
          body = undefined;
          url = `/pipelines/${pick(['brief', segment()])}/runs/${pick(['order-1', segment()])}`;
          break;
        case 'cancel':
          url = `/pipelines/${pick(['brief', segment()])}/runs/${pick(['order-9', segment()])}/cancel`;
          break;
        case 'checkpoint':
          url = `/pipelines/brief/runs/${pick(['order-1', segment()])}/items/${pick(['acme', segment()])}/checkpoint`;
          break;
        case 'webhook': {
          const workflowId = pick(['research-task/fuzz/x', segment()]);
          url = `/webhooks/research/${encodeURIComponent(workflowId)}/${pick([webhookRouteToken(world.intakeKey, workflowId), segment()])}`;
          delete headers.authorization;
          if (random() < 0.5)
            Object.assign(
              headers,
              signWebhook({ secret: pick([webhookSecret, text(12)]), body, timestamp: Math.floor(Date.now() / 1000) - pick([0, 0, 10_000]) }).headers,
            );
          break;
        }
        case 'health':
          method = 'GET';
          body = undefined;
          url = pick(['/healthz', '/readyz', '/metrics', '/openapi.json']);
          break;
        default:
          method = pick(['GET', 'POST', 'DELETE', 'PUT']);
          url = `/${segment()}/${segment()}?${encodeURIComponent(text(20))}=${segment()}`;
          break;
      }
      const response = await request(`${base}${url}`, { method, headers, ...(body !== undefined && method !== 'GET' ? { body } : {}) }).catch(
        (error: Error) => ({ statusCode: -1, body: { text: async () => error.message } }),
      );
      const answer = await response.body.text();
      if (response.statusCode < 0) clientErrors.add(answer.slice(0, 120));
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      const leaks = secrets.filter((secret) => answer.includes(secret));
      if (leaks.length > 0) leaked = [...leaked, `${method} ${url.slice(0, 80)}: ${leaks.length} secret(s)`];
      if (response.statusCode >= 400 && response.statusCode < 500) {
        invalid++;
        // The right 4xx: each a status the route's contract names for what was wrong.
        if ([400, 401, 403, 404, 405, 409, 413, 414, 415, 422].includes(response.statusCode)) rightFourXx++;
      }
      if (index % 50 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
    const health = await request(`${base}/healthz`);
    const healthStatus = health.statusCode;
    await health.body.dump();
    await intake.app.close();
    const tried = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    const serverErrors = [...statuses].filter(([status]) => status >= 500 || status < 0);
    process.stdout.write(
      `\n[hostile] intake fuzz (seed ${SEED})\n  requests: ${tried} in ${Date.now() - started} ms\n  statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n  4xx with the right status: ${rightFourXx} of ${invalid} (${((100 * rightFourXx) / Math.max(1, invalid)).toFixed(1)} %)\n  peak RSS: ${Math.round(peakRss / 1024 ** 2)} MB (from ${Math.round(rssBefore / 1024 ** 2)} MB)\n  secrets leaked: ${leaked.length}\n  requests the client could not send: ${[...clientErrors].join(' | ')}\n`,
    );
    expect(tried).toBeGreaterThanOrEqual(Math.min(REQUESTS, 500));
    expect(serverErrors).toEqual([]);
    expect(healthStatus).toBe(200);
    expect(leaked).toEqual([]);
    expect(rightFourXx).toBe(invalid);
    expect(peakRss - rssBefore).toBeLessThan(300 * 1024 ** 2);
  }, 180_000);
});
