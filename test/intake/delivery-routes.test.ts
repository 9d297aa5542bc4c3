import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalArtifactStore } from '../../src/activities';
import { pipelineRunPrefix } from '../../src/domain/ids';
import { intakeWith, TOKEN, unreachableTemporal } from './helpers';

const auth = { authorization: `Bearer ${TOKEN}` };

const definition = `
name: lists
parameters:
  companies: { type: list }
  filters: { type: object, default: { region: EU } }
  regions: { type: list, options: [EU, US], default: [EU] }
  owner: { type: string }
input:
  items: [one]
  key: "{{ item }}"
step:
  answer:
    query: "{{ params.companies }} in {{ params.filters.region }} for {{ params.owner }}"
budget_usd: 1
`;

describe('intake delivery routes (Temporal down: only what is checked before it)', () => {
  const temporal = unreachableTemporal();
  afterAll(() => temporal.close());

  async function intake(options: Parameters<typeof intakeWith>[1] = {}) {
    const dir = await mkdtemp(path.join(tmpdir(), 'rp-intake-delivery-'));
    await writeFile(path.join(dir, 'lists.yaml'), definition);
    return intakeWith(temporal.client, { pipelinesDir: dir, ...options });
  }

  it('takes list and object params where the definition declares them, and says in HTTP terms what is missing', async () => {
    const { app } = await intake();
    const start = (payload: object) => app.inject({ method: 'POST', url: '/pipelines/lists/runs', headers: { ...auth, 'idempotency-key': 'k-1' }, payload });
    const missing = await start({ params: { companies: ['Acme'] } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().issues).toEqual([
      { path: 'body.params.owner', message: 'parameter owner: is required (no default; give it in the body as params.owner)' },
    ]);
    expect(missing.body).not.toContain('--set');
    const wrong = await start({ params: { companies: 'Acme', filters: ['x'], regions: ['EU', 'APAC'], owner: 'me' } });
    expect(wrong.statusCode).toBe(422);
    expect(
      wrong
        .json()
        .issues.map((issue: { path: string }) => issue.path)
        .sort(),
    ).toEqual(['body.params.companies', 'body.params.filters', 'body.params.regions']);
    expect(wrong.json().error).toContain('must be a list');
    expect(wrong.json().error).toContain('must be an object');
    expect(wrong.json().error).toContain('must be one of EU, US');
    // Valid: the start reaches Temporal, which is down (503), so nothing refused it.
    const valid = await start({ params: { companies: ['Acme', 'Globex'], filters: { region: 'US', size: [1, 2] }, regions: ['US'], owner: 'me' } });
    expect(valid.statusCode).toBe(503);
    await app.close();
  });

  it('takes notify and callback_url (HTTPS, or HTTP on loopback) and refuses others by field', async () => {
    const { app } = await intake();
    const start = (payload: object) => app.inject({ method: 'POST', url: '/pipelines/lists/runs', headers: { ...auth, 'idempotency-key': 'k-2' }, payload });
    const refused = await start({ params: { companies: ['A'], owner: 'me' }, callback_url: 'http://hooks.example.com/x' });
    expect(refused.statusCode).toBe(400);
    expect(JSON.stringify(refused.json().issues)).toContain('callback_url');
    const tooMany = await start({ params: { companies: ['A'], owner: 'me' }, notify: Array.from({ length: 11 }, (_, n) => `https://h${n}.example.com/`) });
    expect(tooMany.statusCode).toBe(400);
    const accepted = await start({
      params: { companies: ['A'], owner: 'me' },
      callback_url: 'https://hooks.example.com/runs',
      notify: ['http://127.0.0.1:9/x'],
    });
    expect(accepted.statusCode).toBe(503);
    await app.close();
  });

  it('serves items paged and output files from the store, behind the bearer token, never outside the run folder', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rp-intake-store-'));
    const store = new LocalArtifactStore(root);
    const prefix = pipelineRunPrefix('lists', 'r-1');
    for (const key of ['a', 'b', 'c']) {
      const result = await store.put(`${prefix}/results/${key}.json`, JSON.stringify({ key, output: `answer ${key}` }), 'application/json');
      await store.put(
        `${prefix}/items/${key}.json`,
        JSON.stringify({ key, index: 0, status: 'completed', attempts: 1, costUsd: 0.005, result, finishedAt: 1 }),
        'application/json',
      );
    }
    await store.put(`${prefix}/outputs/results.csv`, 'name\na\n', 'text/csv');
    await store.put('secret/other.json', '{"x":1}', 'application/json');
    const { app } = await intake({ results: store, publicUrl: 'https://intake.example.com' });
    const get = (url: string, headers: Record<string, string> = auth) => app.inject({ method: 'GET', url, headers });
    const first = await get('/pipelines/lists/runs/r-1/items?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      items: [
        { key: 'a', index: 0, status: 'completed', attempts: 1, costUsd: 0.005, finishedAt: 1, result: { key: 'a', output: 'answer a' } },
        { key: 'b', index: 0, status: 'completed', attempts: 1, costUsd: 0.005, finishedAt: 1, result: { key: 'b', output: 'answer b' } },
      ],
      next: 'https://intake.example.com/pipelines/lists/runs/r-1/items?limit=2&after=b',
    });
    const second = await get('/pipelines/lists/runs/r-1/items?limit=2&after=b');
    expect(second.json().items.map((item: { key: string }) => item.key)).toEqual(['c']);
    expect(second.json().next).toBeUndefined();
    const outputs = await get('/pipelines/lists/runs/r-1/outputs');
    expect(outputs.json()).toEqual({
      files: [{ name: 'results.csv', url: 'https://intake.example.com/pipelines/lists/runs/r-1/outputs/results.csv', bytes: 7, contentType: 'text/csv' }],
    });
    const csv = await get('/pipelines/lists/runs/r-1/outputs/results.csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toBe('name\na\n');
    const file = await get('/pipelines/lists/runs/r-1/items/a/files/a.json');
    expect(file.json()).toEqual({ key: 'a', output: 'answer a' });
    expect((await get('/pipelines/lists/runs/r-1/items/a/files/other.json')).statusCode).toBe(404);
    expect((await get('/pipelines/lists/runs/r-1/outputs/..%2F..%2F..%2Fsecret%2Fother.json')).statusCode).toBe(400);
    expect((await get('/pipelines/lists/runs/r-1/outputs/missing.csv')).statusCode).toBe(404);
    expect((await get('/pipelines/lists/runs/nothing/items')).statusCode).toBe(404);
    expect((await get('/pipelines/lists/runs/r-1/items', {})).statusCode).toBe(401);
    await app.close();
    const bare = await intake();
    expect((await bare.app.inject({ method: 'GET', url: '/pipelines/lists/runs/r-1/items', headers: auth })).statusCode).toBe(501);
    await bare.app.close();
  });

  it("a page of a large run's items reads its own records and results only, and describes no artifact", async () => {
    const store = new LocalArtifactStore(await mkdtemp(path.join(tmpdir(), 'rp-intake-large-')));
    const prefix = pipelineRunPrefix('lists', 'big');
    const keys = Array.from({ length: 400 }, (_, index) => `k${String(index).padStart(4, '0')}`);
    for (const key of keys) {
      const result = await store.put(`${prefix}/results/${key}.json`, JSON.stringify({ key, output: key }), 'application/json');
      await store.put(
        `${prefix}/items/${key}.json`,
        JSON.stringify({ key, index: 0, status: 'completed', attempts: 1, costUsd: 0.005, result }),
        'application/json',
      );
    }
    const reads: string[] = [];
    // Artifacts described (size and hash read): by stat, or by list (which describes every artifact it lists).
    let described = 0;
    const counted = {
      get: (key: string) => (reads.push(key), store.get(key)),
      stat: (key: string) => (described++, store.stat(key)),
      list: async (prefix: string) => {
        const refs = await store.list(prefix);
        described += refs.length;
        return refs;
      },
      keys: (prefix: string) => store.keys(prefix),
    };
    const { app } = await intake({ results: counted });
    const page = await app.inject({ method: 'GET', url: '/pipelines/lists/runs/big/items?limit=3&after=k0199', headers: auth });
    expect(page.json().items.map((item: { key: string }) => item.key)).toEqual(['k0200', 'k0201', 'k0202']);
    // Three records and their three results: not a read, hash or HEAD of each of the run's 400 records per page.
    expect(reads.sort()).toEqual(['k0200', 'k0201', 'k0202'].flatMap((key) => [`${prefix}/items/${key}.json`, `${prefix}/results/${key}.json`]).sort());
    expect(described).toBe(0);
    await app.close();
  });
});
