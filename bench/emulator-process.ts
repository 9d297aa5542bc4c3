// The emulator in a child process of its own, as the research service is another machine in production:
// the fan-out bench's process then holds what a deployed worker holds (the worker, its activities, the
// service client and the Temporal client), and its RSS and CPU are the worker's. The parent talks to the
// child over Node's IPC channel: the child sends its address once listening, and answers requests for
// its books (charge records) and its own memory and CPU.
// Usage (by `startEmulatorProcess`, not by hand): node bench/run.js bench/emulator-process.ts
import { fork } from 'node:child_process';
import type { EmulatorOptions } from '../src/emulator/options';
import { startEmulator } from '../src/emulator/server';
import { runIfEntry } from './table';

/** Emulator options that cross a process boundary (no clock, log or other function). */
export type SerializableEmulatorOptions = Pick<EmulatorOptions, 'seed' | 'defaultCreditsUsd' | 'rateLimit' | 'speed' | 'streamDelayMs'>;

/** What the child reports about itself and its books. */
export interface EmulatorProcessReport {
  chargeRecords: number;
  chargeLogBytes: number;
  rssMb: number;
  /** Highest RSS of the child since it started. */
  maxRssMb: number;
  /** CPU time of the child since it started (user + system, every thread). */
  cpuMs: number;
}

/** An emulator running in a child process. */
export interface EmulatorProcess {
  readonly url: string;
  readonly apiKey: string;
  readonly pid: number;
  report(): Promise<EmulatorProcessReport>;
  close(): Promise<void>;
}

type ParentMessage = { type: 'start'; options: SerializableEmulatorOptions } | { type: 'report' } | { type: 'close' };
type ChildMessage = { type: 'ready'; url: string; apiKey: string } | { type: 'report'; report: EmulatorProcessReport } | { type: 'error'; message: string };

/** Starts the emulator with `options` in a child Node process and resolves once it listens. */
export async function startEmulatorProcess(options: SerializableEmulatorOptions): Promise<EmulatorProcess> {
  // No inherited Node flags (--cpu-prof, --max-old-space-size…): they are for the worker's process.
  const child = fork(require.resolve('./run.js'), [__filename], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: ChildMessage) => {
        if (message.type !== type && message.type !== 'error') return;
        cleanup();
        if (message.type === 'error') reject(new Error(`emulator process: ${message.message}`));
        else resolve(message as Extract<ChildMessage, { type: T }>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`emulator process exited (code ${code}) before answering`));
      };
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const send = (message: ParentMessage) => child.send(message);
  const ready = next('ready');
  send({ type: 'start', options });
  const { url, apiKey } = await ready;
  let closing: Promise<void> | undefined;
  return {
    url,
    apiKey,
    pid: child.pid ?? 0,
    report: async () => {
      const answer = next('report');
      send({ type: 'report' });
      return (await answer).report;
    },
    close: () => {
      closing ??= (async () => {
        if (child.exitCode === null && child.connected) send({ type: 'close' });
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

runIfEntry(module, async () => {
  const reply = (message: ChildMessage) => process.send?.(message);
  let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
  const stop = async () => {
    await emulator?.close();
    process.disconnect?.();
  };
  // The parent gone (crashed or killed): stop as well rather than linger.
  process.once('disconnect', () => void emulator?.close());
  process.on('message', (message: ParentMessage) => {
    void (async () => {
      try {
        if (message.type === 'start') {
          emulator = await startEmulator(message.options);
          reply({ type: 'ready', url: emulator.url, apiKey: emulator.defaultApiKey });
        } else if (message.type === 'report') {
          const charges = emulator?.accounts.chargeLog() ?? [];
          const cpu = process.cpuUsage();
          reply({
            type: 'report',
            report: {
              chargeRecords: charges.length,
              chargeLogBytes: Buffer.byteLength(JSON.stringify(charges)),
              rssMb: process.memoryUsage.rss() / 1_048_576,
              maxRssMb: process.resourceUsage().maxRSS / 1024,
              cpuMs: (cpu.user + cpu.system) / 1000,
            },
          });
        } else if (message.type === 'close') {
          await stop();
        }
      } catch (error) {
        reply({ type: 'error', message: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
});
