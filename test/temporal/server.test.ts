import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectWorkerTemporal, NoTemporalServerError, openTemporalServer } from '../../src/temporal/server';
import { testServer } from '../support/server/test-server';

// A port nothing listens on: bound, then released.
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('openTemporalServer', () => {
  jest.setTimeout(60_000);

  it('lists every way it tried, and how to provide a server, when none works', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'rp-no-temporal-'));
    const env = { PATH: empty, TEMPORAL_INSTALL_DIR: empty, TEMPORAL_SKIP_DOWNLOAD: '1' };
    const error = await openTemporalServer({ env }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoTemporalServerError);
    const message = (error as Error).message;
    expect(message).toContain('`temporal` on PATH: not found');
    expect(message).toContain('the project folder (.temporal/bin/temporal): not found');
    expect(message).toContain("the Temporal SDK's dev server download: skipped");
    expect(message).toContain('npm run temporal:install');
    expect(message).not.toMatch(/\n\s+at /);
  });

  it('stops at an explicit TEMPORAL_CLI_PATH that is not executable, naming it', async () => {
    const error = await openTemporalServer({ env: { TEMPORAL_CLI_PATH: '/nonexistent/temporal' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoTemporalServerError);
    expect((error as NoTemporalServerError).tried).toEqual(['TEMPORAL_CLI_PATH=/nonexistent/temporal: not an executable file']);
  });

  it('stops at an explicit TEMPORAL_ADDRESS nobody answers on, naming it', async () => {
    const port = await closedPort();
    const error = await openTemporalServer({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoTemporalServerError);
    expect((error as NoTemporalServerError).tried).toHaveLength(1);
    expect((error as NoTemporalServerError).tried[0]).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${port}: `);
  });

  it('connects to the server TEMPORAL_ADDRESS names and checks its search attributes', async () => {
    const run = testServer();
    if (!run.available) throw new Error(`this test needs the run's Temporal server: ${run.reason}`);
    const server = await openTemporalServer({ env: { TEMPORAL_ADDRESS: run.address, TEMPORAL_NAMESPACE: run.namespace } });
    try {
      expect(server).toMatchObject({ address: run.address, namespace: run.namespace, source: 'TEMPORAL_ADDRESS' });
      const { customAttributes } = await server.connection.operatorService.listSearchAttributes({ namespace: run.namespace });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(['ResearchStatus', 'ResearchCostUsd', 'DeepResearchId']));
    } finally {
      await server.close();
    }
  });
});

describe('connectWorkerTemporal', () => {
  it('says where it looked and how to start a server when nothing answers', async () => {
    const port = await closedPort();
    const error = await connectWorkerTemporal(`127.0.0.1:${port}`, 'default', false).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoTemporalServerError);
    const message = (error as Error).message;
    expect(message).toContain(`127.0.0.1:${port} (TEMPORAL_ADDRESS is unset)`);
    expect(message).toMatch(/server start-dev|no local `temporal` binary/);
  }, 30_000);

  it('names the profile an address came from, not TEMPORAL_ADDRESS', async () => {
    const port = await closedPort();
    const source = '/etc/temporal.toml [profile.default] address';
    const error = await connectWorkerTemporal(`127.0.0.1:${port}`, 'default', source).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoTemporalServerError);
    expect((error as Error).message).toContain(`127.0.0.1:${port} (from ${source})`);
    // The tried line names the profile; only the closing hint mentions TEMPORAL_ADDRESS, as one way to provide a server.
    expect((error as NoTemporalServerError).tried[0]).not.toContain('TEMPORAL_ADDRESS');
  }, 30_000);
});
