import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeating } from '../../src/activities/outputs';

async function* slowChunks(count: number, gapMs: number): AsyncGenerator<Uint8Array> {
  for (let index = 0; index < count; index++) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    yield new Uint8Array([index]);
  }
}

describe('a streaming download', () => {
  it('passes every chunk through and heartbeats while a slow file flows, with the files stored before it', async () => {
    const env = new MockActivityEnvironment({ startToCloseTimeoutMs: 60_000, currentAttemptScheduledTimestampMs: Date.now() });
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const received: number[] = await env.run(async () => {
      const out: number[] = [];
      for await (const chunk of heartbeating(slowChunks(5, 500), 3) as AsyncIterable<Uint8Array>) out.push(chunk[0]!);
      return out;
    });
    expect(received).toEqual([0, 1, 2, 3, 4]);
    expect(beats.length).toBeGreaterThanOrEqual(1);
    expect(beats.every((details) => JSON.stringify(details) === JSON.stringify({ stored: 3 }))).toBe(true);
  });

  it('stops reading when the activity is cancelled', async () => {
    const env = new MockActivityEnvironment({ startToCloseTimeoutMs: 60_000, currentAttemptScheduledTimestampMs: Date.now() });
    const run = env.run(async () => {
      for await (const _chunk of heartbeating(slowChunks(20, 100), 0) as AsyncIterable<Uint8Array>) void _chunk;
    });
    setTimeout(() => env.cancel(), 250);
    await expect(run).rejects.toThrow();
  });

  it('leaves bytes and text as they are', () => {
    const bytes = new Uint8Array([1, 2]);
    expect(heartbeating(bytes, 0)).toBe(bytes);
    expect(heartbeating('report', 0)).toBe('report');
  });
});
