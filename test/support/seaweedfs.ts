import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where global setup leaves the run's SeaweedFS for the test files (they run in other processes). */
export const STORE_VARIABLE = 'RP_TEST_S3_STORE';

/** The folder `npm run store:install` fills (ignored by git). */
export const SEAWEEDFS_DIR = path.resolve(__dirname, '..', '..', '.seaweedfs');

/** An S3 endpoint of the run's SeaweedFS with its credentials, or why there is none. */
export type TestStoreInfo =
  | { readonly available: true; readonly endpoint: string; readonly region: string; readonly accessKeyId: string; readonly secretAccessKey: string }
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
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
  const child: ChildProcess = spawn(weed, args, { cwd: dir, stdio: 'ignore', detached: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    info: { available: true, endpoint: `http://127.0.0.1:${s3}`, region: 'us-east-1', accessKeyId, secretAccessKey },
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
