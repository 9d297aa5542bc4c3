import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where global setup leaves the run's SeaweedFS for the test files (they run in other processes). */
export const STORE_VARIABLE = 'RP_TEST_S3_STORE';

/** The folder `npm run store:install` fills (ignored by git). */
export const SEAWEEDFS_DIR = path.resolve(__dirname, '..', '..', '.seaweedfs');

/** An S3 endpoint of the run's SeaweedFS with its credentials, or why there is none. */
export type TestStoreInfo =
  | {
      readonly available: true;
      readonly endpoint: string;
      readonly region: string;
      readonly accessKeyId: string;
      readonly secretAccessKey: string;
      /** SeaweedFS's own output, while it runs. */
      readonly logFile?: string;
    }
  | { readonly available: false; readonly reason: string };

/** A running SeaweedFS: its S3 endpoint, and how to stop it and delete its data. */
export interface SeaweedFs {
  info: TestStoreInfo & { available: true };
  close(): Promise<void>;
}

/** The `weed` binary of the project's install, if there is one. */
export function weedBinary(dir: string = process.env.SEAWEEDFS_INSTALL_DIR ?? SEAWEEDFS_DIR): string | undefined {
  const file = path.join(dir, 'bin', 'weed');
  try {
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}

/**
 * Ports SeaweedFS is given: below Linux's ephemeral range (32768 and up), so no server another test starts
 * on port 0 is handed one of them in the seconds before SeaweedFS binds it (its S3 gateway binds last,
 * about 12 s after the start, and the process exits when a port is taken).
 */
const PORTS_FROM = 20_000;
const PORTS_TO = 32_000;

/** Whether `port` can be bound on loopback now. */
async function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = PORTS_FROM + Math.floor(Math.random() * (PORTS_TO - PORTS_FROM));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port between ${PORTS_FROM} and ${PORTS_TO}`);
}

/**
 * Starts `weed server` (master, volume, filer and S3 gateway in one process) on free loopback ports,
 * with one identity allowed everything, data in a temp folder. Returns at once: the S3 port answers
 * about 12 s later (see `waitForStore`).
 */
export async function startSeaweedFs(weed: string): Promise<SeaweedFs> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-seaweedfs-'));
  const ports: number[] = [];
  while (ports.length < 8) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [s3, s3Grpc, master, masterGrpc, volume, volumeGrpc, filer, filerGrpc] = ports as [number, number, number, number, number, number, number, number];
  const accessKeyId = `rp${randomBytes(8).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('hex');
  const config = path.join(dir, 's3.json');
  await writeFile(
    config,
    JSON.stringify({
      identities: [
        { name: 'tests', credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }], actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'] },
      ],
    }),
  );
  const args = [
    'server',
    `-dir=${path.join(dir, 'data')}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    '-master.telemetry=false',
    '-master.volumeSizeLimitMB=64',
    '-volume.max=400',
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    '-s3',
    `-s3.port=${s3}`,
    `-s3.port.grpc=${s3Grpc}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.config=${config}`,
    `-filer.localSocket=${path.join(dir, 'filer.sock')}`,
    `-s3.localSocket=${path.join(dir, 's3.sock')}`,
  ];
  await mkdir(path.join(dir, 'data'));
  // Its output goes to a file beside its data: a test that finds it gone names it (`logFile`).
  const logFile = path.join(dir, 'weed.log');
  const log = await open(logFile, 'a');
  const child: ChildProcess = spawn(weed, args, { cwd: dir, stdio: ['ignore', log.fd, log.fd], detached: false });
  await log.close();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    info: { available: true, endpoint: `http://127.0.0.1:${s3}`, region: 'us-east-1', accessKeyId, secretAccessKey, logFile },
    async close() {
      // Its data is thrown away: no need for SIGTERM's orderly shutdown, which takes SeaweedFS about 25 s.
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
      // Its gRPC servers also listen on /tmp/seaweedfs-<role>-grpc-<port>.sock, which a killed process leaves.
      const ours = new Set(ports.map(String));
      const sockets = (await readdir('/tmp').catch(() => [])).filter((name) => ours.has(/^seaweedfs-[\w-]+-(\d+)\.sock$/.exec(name)?.[1] ?? ''));
      await Promise.all(sockets.map((name) => rm(path.join('/tmp', name), { force: true })));
    },
  };
}

/** The run's SeaweedFS, read in a test file. */
export function testStore(env: NodeJS.ProcessEnv = process.env): TestStoreInfo {
  const raw = env[STORE_VARIABLE];
  if (!raw) return { available: false, reason: 'the Jest global setup did not run (run the suite through jest.config.js)' };
  return JSON.parse(raw) as TestStoreInfo;
}
