import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResearchClient } from '../../src/api/client';
import { ResearchApiError } from '../../src/api/errors';
import { isPrivateAddress } from '../../src/api/transport';

// Links the service returns (deliverables, PDFs, images) are fetched by the worker: one pointing into the
// worker's own network (a cloud metadata address, an internal service) must not be followed (SSRF).
describe('links into private networks', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.9', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['93.184.216.34', false],
    ['8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s is private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  let service: Server;
  let files: Server;
  let serviceUrl: string;
  let filesPort: number;
  beforeAll(async () => {
    const listen = async (server: Server) =>
      new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
    service = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF service'));
    files = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF internal'));
    serviceUrl = `http://127.0.0.1:${await listen(service)}/v1`;
    filesPort = await listen(files);
  });
  afterAll(async () => {
    await new Promise((resolve) => service.close(resolve));
    await new Promise((resolve) => files.close(resolve));
  });

  const read = async (client: ResearchClient, url: string): Promise<string> => Buffer.from((await client.downloadAsset(url)).data).toString('utf8');
  const refusal = async (call: Promise<unknown>): Promise<ResearchApiError> => {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ResearchApiError);
    return error as ResearchApiError;
  };

  it("fetches from the service's own origin, but refuses a link to a private address written in the link", async () => {
    const client = new ResearchClient({ baseUrl: serviceUrl, apiKey: 'rk_ssrf_test_key' });
    try {
      expect(await read(client, `${serviceUrl.replace('/v1', '')}/files/report.pdf`)).toBe('%PDF service');
      const error = await refusal(read(client, `http://127.0.0.1:${filesPort}/latest/meta-data`));
      expect(error.message).toMatch(/127\.0\.0\.1 resolves to 127\.0\.0\.1, a private, loopback or link-local address.*RESEARCH_ALLOW_PRIVATE_DOWNLOADS=true/);
      expect(error.message).not.toContain('rk_ssrf_test_key');
    } finally {
      await client.close();
    }
  });

  it('refuses a host name that resolves to a private address, checked when connecting', async () => {
    const client = new ResearchClient({ baseUrl: serviceUrl, apiKey: 'rk_ssrf_test_key' });
    try {
      const error = await refusal(read(client, `http://localhost:${filesPort}/internal.pdf`));
      expect(error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a private, loopback or link-local address/);
    } finally {
      await client.close();
    }
  });

  it('follows such links when private downloads are allowed', async () => {
    const client = new ResearchClient({ baseUrl: serviceUrl, apiKey: 'rk_ssrf_test_key', allowPrivateDownloads: true });
    try {
      expect(await read(client, `http://localhost:${filesPort}/internal.pdf`)).toBe('%PDF internal');
    } finally {
      await client.close();
    }
  });
});
