import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testServer } from '../support/server/test-server';

// NO_COLOR (https://no-color.org) the way a person meets it: the compiled `rp` on a real terminal. A
// pseudo-terminal comes from util-linux `script` or Python's pty module, whichever the machine has.
const ROOT = path.resolve(__dirname, '..', '..');
/** The start of an ANSI escape sequence (ESC [): colours, and cursor moves too. */
const ESCAPE = '\u001b[';

function terminalRunner(): ((command: string[]) => string[]) | undefined {
  const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (script.status === 0 && /util-linux/.test(script.stdout)) {
    return (command) => ['script', '-qefc', command.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' '), '/dev/null'];
  }
  const python = spawnSync('python3', ['-c', 'import pty'], { encoding: 'utf8' });
  if (python.status === 0) return (command) => ['python3', '-c', 'import pty, sys; pty.spawn(sys.argv[1:])', ...command];
  return undefined;
}

const onTerminal = terminalRunner();
const server = testServer();
const skipped = !onTerminal ? 'neither util-linux script nor python3 gives a pseudo-terminal here' : !server.available ? server.reason : undefined;

(skipped ? describe.skip : describe)(`NO_COLOR on a real terminal${skipped ? ` [skipped: ${skipped}]` : ''}`, () => {
  let build: string;
  let work: string;
  beforeAll(() => {
    // The CLI as users run it, built beside a copy of package.json (rp --version reads it) and the project's node_modules.
    build = mkdtempSync(path.join(tmpdir(), 'rp-no-color-'));
    copyFileSync(path.join(ROOT, 'package.json'), path.join(build, 'package.json'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(build, 'node_modules'), 'dir');
    const built = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(build, 'dist')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`building rp failed: ${built.stdout}${built.stderr}`);
    work = mkdtempSync(path.join(tmpdir(), 'rp-no-color-work-'));
  }, 180_000);
  afterAll(() => {
    rmSync(build, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs `rp ...args` on a pseudo-terminal; resolves with what the terminal showed once `until` appears (then Ctrl-C) or the command ends. */
  function onPty(args: string[], env: Record<string, string>, until?: RegExp): Promise<string> {
    if (!server.available || !onTerminal) throw new Error('unreachable');
    const [command, ...rest] = onTerminal([process.execPath, path.join(build, 'dist', 'cli.js'), ...args]);
    const child = spawn(command!, rest, {
      cwd: work,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: work,
        TERM: 'xterm-256color',
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: server.namespace,
        ARTIFACT_DIR: path.join(work, 'artifacts'),
        ...env,
      },
    });
    let shown = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        process.kill(-child.pid!, 'SIGKILL');
        reject(new Error(`no ${String(until)} within 60 s; the terminal showed:\n${shown}`));
      }, 60_000);
      const read = (chunk: Buffer) => {
        shown += chunk.toString();
        if (until?.test(shown)) process.kill(-child.pid!, 'SIGINT');
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('close', () => {
        clearTimeout(timer);
        resolve(shown);
      });
    });
  }

  test('rp worker with LOG_FORMAT=pretty: coloured on a terminal, plain with NO_COLOR=1', async () => {
    const polling = /worker polling task queue/;
    const coloured = await onPty(['worker'], { LOG_FORMAT: 'pretty', TEMPORAL_TASK_QUEUE: 'no-color-a' }, polling);
    expect(coloured).toMatch(polling);
    expect(coloured).toMatch(ESCAPE);
    const plain = await onPty(['worker'], { LOG_FORMAT: 'pretty', TEMPORAL_TASK_QUEUE: 'no-color-b', NO_COLOR: '1' }, polling);
    expect(plain).toMatch(/INFO.*worker polling task queue no-color-b/);
    expect(plain).not.toMatch(ESCAPE);
  }, 150_000);

  test('the other commands print no escape at all with NO_COLOR=1 (help, validate, dry run, their errors)', async () => {
    const example = path.join(ROOT, 'pipelines', 'earnings-batch.yaml');
    for (const args of [
      ['--help'],
      ['pipelines', 'validate', example],
      ['run', example, '--dry-run', '--set', 'quarter=Q4'],
      ['run', example, '--dry-run'],
      ['status', 'nope'],
    ]) {
      const shown = await onPty(args, { NO_COLOR: '1' });
      expect(shown.trim()).not.toBe('');
      expect(shown).not.toMatch(ESCAPE);
    }
  }, 120_000);
});
