import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { AesGcmPayloadCodec, parseCodecKeys, startCodecServer, type RunningCodecServer } from '../../src/codec';

const codec = new AesGcmPayloadCodec(parseCodecKeys(`k2:${randomBytes(32).toString('base64')}`));

/** Sends only the head of a request announcing a large body, and resolves with the first status line. */
function statusOfHeadOnly(url: string, headers: string, length: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve('no answer before the body');
    });
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString('latin1').split('\r\n')[0]!);
    });
    socket.write(`POST /decode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Content-Length: ${length}\r\n\r\n{"pay`);
  });
}

describe('the codec endpoint under hostile input', () => {
  let server: RunningCodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ codec, token: 'ui-access-token-0123456789abcdef', corsOrigins: [], namespaces: ['research'] });
  });
  afterAll(() => server.close());

  test('an unauthenticated request is refused (401) before its body is read', async () => {
    expect(await statusOfHeadOnly(server.url, '', 1024 * 1024)).toBe('HTTP/1.1 401 Unauthorized');
  });

  test('an authenticated body over the cap is refused (413) from its announced length, unread', async () => {
    expect(await statusOfHeadOnly(server.url, 'Authorization: Bearer ui-access-token-0123456789abcdef\r\nX-Namespace: research\r\n', 200 * 1024 * 1024)).toBe(
      'HTTP/1.1 413 Payload Too Large',
    );
  });
});
