import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A PostgreSQL server for one test file: a fresh cluster in a temporary folder, on loopback. */
export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth, loopback only). */
  url: string;
  close(): Promise<void>;
}

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The folder holding `initdb` and `pg_ctl`: on PATH first, then Debian's `/usr/lib/postgresql/<N>/bin`
 * (the `postgresql` package leaves them off PATH), newest version first; undefined when there is none.
 */
export function postgresBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean))
    if (executable(path.join(dir, 'initdb')) && executable(path.join(dir, 'pg_ctl'))) return dir;
  let versions: string[];
  try {
    versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  } catch {
    return undefined;
  }
  for (const version of versions) {
    const dir = path.join('/usr/lib/postgresql', version, 'bin');
    if (executable(path.join(dir, 'initdb')) && executable(path.join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

/** Why there is no PostgreSQL to test against, or undefined when there is. */
export function postgresMissing(): string | undefined {
  return postgresBinDir()
    ? undefined
    : "no initdb/pg_ctl on PATH or under /usr/lib/postgresql/*/bin: install Debian's postgresql package (.ci/run does under CI)";
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The user the cluster runs as: PostgreSQL refuses root, so root hands it to `postgres` (Debian's package makes it) or `nobody`. */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as');
}

function run(file: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} ${args[0]} exited ${code}:\n${output.slice(-2000)}`))));
  });
}

/**
 * Starts PostgreSQL: `initdb` into a temporary folder, then `pg_ctl start` on a free loopback port with
 * its unix socket in that folder too (nothing outside it is touched), waiting until it accepts
 * connections. `close()` stops it (fast shutdown) and deletes the folder.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing());
  const dir = await mkdtemp(path.join(tmpdir(), 'rp-postgres-'));
  const user = clusterUser();
  if (user) await chown(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync'], user);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=20 -c shared_buffers=16MB`;
  await run(path.join(bin, 'pg_ctl'), ['start', '-D', data, '-w', '-t', '60', '-l', path.join(dir, 'postgres.log'), '-o', options], user);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close: async () => {
      await run(path.join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w'], user).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
