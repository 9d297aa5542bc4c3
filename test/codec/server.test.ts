import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import Fastify, { type FastifyInstance } from 'fastify';
import { AesGcmPayloadCodec, codecRoutes, isLoopbackOrigin, parseCodecKeys, startCodecServer, type RunningCodecServer } from '../../src/codec';

const TOKEN = 'ui-access-token-0123456789abcdef';
const UI = 'https://temporal-ui.example.com';
const codec = new AesGcmPayloadCodec(parseCodecKeys(`k2:${randomBytes(32).toString('base64')}`));
const plain = defaultPayloadConverter.toPayload({ query: 'private question' });
const json = (payload: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
const auth = { authorization: `Bearer ${TOKEN}`, 'x-namespace': 'research', 'content-type': 'application/json' };

describe('the codec endpoint', () => {
  let server: RunningCodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ codec, token: TOKEN, corsOrigins: [UI], namespaces: ['research'] });
  });
  afterAll(() => server.close());

  test('listens on loopback on a free port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('/encode then /decode round-trips payloads in the protocol JSON', async () => {
    const encoded = await fetch(`${server.url}/encode`, { method: 'POST', headers: auth, body: JSON.stringify({ payloads: [json(plain)] }) });
    expect(encoded.status).toBe(200);
    const { payloads } = (await encoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(payloads[0]!.data, 'base64').toString('latin1')).not.toContain('private question');
    const decoded = await fetch(`${server.url}/decode`, { method: 'POST', headers: auth, body: JSON.stringify({ payloads }) });
    expect(await decoded.json()).toEqual({ payloads: [json(plain)] });
  });

  test("answers the UI origin's preflight without a token, and no other origin", async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-namespace' },
      });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await preflight('https://evil.example.com')).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a payload under an unknown key id is refused (422) naming the key id', async () => {
    const other = new AesGcmPayloadCodec(parseCodecKeys(`old:${randomBytes(32).toString('base64')}`));
    const [foreign] = await other.encode([plain]);
    const response = await fetch(`${server.url}/decode`, { method: 'POST', headers: auth, body: JSON.stringify({ payloads: [json(foreign!)] }) });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: string }).error).toContain('key id "old"');
  });

  test('a body that is not JSON is a 400', async () => {
    const response = await fetch(`${server.url}/decode`, { method: 'POST', headers: auth, body: '{payloads' });
    expect(response.status).toBe(400);
  });
});

describe('codecRoutes as a plugin', () => {
  let app: FastifyInstance;
  afterEach(() => app.close());

  test('mounts under a prefix in another fastify app (the intake), without a token when none is set', async () => {
    app = Fastify();
    app.get('/health', async () => ({ ok: true }));
    await app.register(codecRoutes, { prefix: '/codec', codec, token: undefined, corsOrigins: isLoopbackOrigin });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const [encrypted] = await codec.encode([plain]);
    const response = await fetch(`${base}/codec/decode`, {
      method: 'POST',
      headers: { origin: 'http://127.0.0.1:8233', 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [json(encrypted!)] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
    expect(await response.json()).toEqual({ payloads: [json(plain)] });
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  test("the dev server's loopback origins pass and others do not", () => {
    expect(['http://127.0.0.1:8233', 'http://localhost:41234', 'http://[::1]:8233'].every(isLoopbackOrigin)).toBe(true);
    expect(['http://127.0.0.1.evil.com', 'https://example.com', 'http://10.0.0.2:8233'].some(isLoopbackOrigin)).toBe(false);
  });
});
