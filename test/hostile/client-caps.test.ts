import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResearchClient } from '../../src/api/client';
import { ResearchApiError } from '../../src/api/errors';

// The client reads whatever a server sends: a body that never ends must be refused at a cap, with a
// clear error, without buffering it (an endless answer once took gigabytes).
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** Writes `prefix`, then chunks until the client goes away (or 1 GB, a bound for the test itself). */
function endless(res: ServerResponse, prefix: string): void {
  res.write(prefix);
  let sent = 0;
  const pump = (): void => {
    while (!res.destroyed && sent < 1024 ** 3) {
      sent += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => void (sent = Infinity));
  pump();
}

describe('the client caps every body it reads', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      if (req.url?.endsWith('/status')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return endless(res, '{"status":"running","padding":"');
      }
      if (req.url?.startsWith('/v1/deepresearch/list')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 ** 3) });
        return endless(res, '{');
      }
      if (req.url?.endsWith('/answer')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return endless(res, 'data: ');
      }
      if (req.url?.startsWith('/files/')) {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        return endless(res, '%PDF');
      }
      res.writeHead(500, { 'content-type': 'text/plain' });
      return endless(res, 'error: ');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = (options: Partial<ConstructorParameters<typeof ResearchClient>[0]> = {}) =>
    new ResearchClient({ baseUrl, apiKey: 'rk_caps_test_key', timeoutMs: 30_000, ...options });
  const failure = async (call: Promise<unknown>): Promise<ResearchApiError> => {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ResearchApiError);
    return error as ResearchApiError;
  };

  it('refuses a JSON answer past 32 MB without buffering it, naming the route and the cap', async () => {
    const rss = process.memoryUsage().rss;
    const error = await failure(client().getTask('t1'));
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: false });
    expect(error.message).toMatch(
      /GET \/v1\/deepresearch\/tasks\/t1\/status returned an invalid response: the body is over the 33554432 bytes a JSON answer may have/,
    );
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 ** 2);
  });

  it('refuses a JSON answer whose Content-Length is over the cap before reading it', async () => {
    const error = await failure(client().listTasks());
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toMatch(/the body is over the 33554432 bytes a JSON answer may have \(10737418240 or more\)/);
  });

  it('refuses an Answer stream event that never ends', async () => {
    const stream = client({ maxEventBytes: 1024 * 1024 }).answer({ query: 'endless' });
    const error = await failure(
      (async () => {
        for await (const _event of stream) {
          /* nothing arrives */
        }
      })(),
    );
    expect(error.message).toMatch(/an event is over the 1048576 bytes one may have/);
  });

  it('refuses a download past its cap, whole or streamed', async () => {
    const capped = client({ maxDownloadBytes: 2 * 1024 * 1024 });
    expect((await failure(capped.downloadAsset(`${baseUrl.replace('/v1', '')}/files/report.pdf`))).message).toMatch(
      /the file is over the 2097152 bytes a download may have/,
    );
    const { body } = await capped.streamAsset(`${baseUrl.replace('/v1', '')}/files/report.pdf`);
    let bytes = 0;
    const error = await failure(
      (async () => {
        for await (const chunk of body) bytes += chunk.length;
      })(),
    );
    expect(error.kind).toBe('invalid_response');
    expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  it('reads at most 64 KB of an error answer for its message', async () => {
    const error = await failure(client().getBatch('b1'));
    expect(error.status).toBe(500);
    expect(error.message.length).toBeLessThan(70 * 1024);
  });
});
