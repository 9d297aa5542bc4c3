import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { parseCodecKeys } from '../src/codec';
import { DevInterruptedError, runDev } from '../src/dev';

// `rp dev` starts its own dev server (with the UI) from the first binary found, as on a fresh machine.
const env = { PATH: process.env.PATH, ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}) };

async function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect(Number(port), host === 'localhost' ? '127.0.0.1' : host!, () => { socket.end(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

describe('rp dev', () => {
  jest.setTimeout(120_000);
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(path.join(tmpdir(), 'rp-dev-')); });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('starts a dev server with its UI, runs the sample task to the end and stops what it started', async () => {
    const lines: string[] = [];
    let uiPage: Promise<{ status: number; body: string }> | undefined;
    const result = await runDev({
      env, artifactDir: dir, speed: 600,
      log: (line) => {
        lines.push(line);
        const ui = /^Temporal UI: (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1];
        if (ui) uiPage = fetch(ui).then(async (response) => ({ status: response.status, body: await response.text() }));
      },
    });
    expect(result).toMatchObject({ status: 'completed', mode: 'fast' });
    const report = await readFile(fileURLToPath(result.outputs.report!.uri), 'utf8');
    expect(report.length).toBe(result.outputs.report!.bytes);
    // The UI answered while the run was going.
    expect(await uiPage).toMatchObject({ status: 200, body: expect.stringContaining('<html') });
    expect(lines.join('\n')).toMatch(/started workflow research-task\/dev\/.*\/sample: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows\//);
    const address = /^Temporal server at (\S+) /m.exec(lines.join('\n'))?.[1];
    expect(address).toBeDefined();
    expect(await accepts(address!)).toBe(false);
  });

  it('on interrupt cancels the sample task and stops the dev server', async () => {
    const interrupt = new AbortController();
    const lines: string[] = [];
    const run = runDev({ env, artifactDir: dir, speed: 1, signal: interrupt.signal, log: (line) => {
      lines.push(line);
      if (line.startsWith('started workflow')) interrupt.abort();
    } });
    await expect(run).rejects.toBeInstanceOf(DevInterruptedError);
    const address = /^Temporal server at (\S+) /m.exec(lines.join('\n'))?.[1];
    expect(await accepts(address!)).toBe(false);
  });

  it('with codec keys runs the sample task and points the UI at a local codec endpoint, stopped at the end', async () => {
    const lines: string[] = [];
    let settings: Promise<unknown> | undefined;
    let codecUrl: string | undefined;
    const result = await runDev({
      env, artifactDir: dir, speed: 600, codec: parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`),
      log: (line) => {
        lines.push(line);
        codecUrl ??= /the UI decodes them through (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
        const ui = /^Temporal UI: (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1];
        if (ui) settings = fetch(`${ui}/api/v1/settings`).then((response) => response.json());
      },
    });
    expect(result).toMatchObject({ status: 'completed', mode: 'fast' });
    expect(codecUrl).toBeDefined();
    // The dev server's UI was told where to decode payloads.
    expect(await settings).toMatchObject({ Codec: { Endpoint: codecUrl } });
    // The codec server stopped with the rest.
    await expect(fetch(`${codecUrl}/decode`, { method: 'POST' })).rejects.toThrow();
  });
});
