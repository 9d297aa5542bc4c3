import {
  CHECKPOINT_WATCH_MAX_DELAY_MS,
  AWAITING_INPUT_POLL_DELAY_MS,
  nextPollDelayMs,
  PAUSED_POLL_DELAY_MS,
  POLL_PROFILES,
  quietUntilMs,
  readRetryDelayMs,
  WEBHOOK_FALLBACK_FACTOR,
  type PollDelayInput,
} from '../../src/workflows/polling';

const base: PollDelayInput = { mode: 'standard', status: 'running', elapsedMs: 0, webhookConfigured: false, checkpointsAhead: true };
const noCheckpoints: PollDelayInput = { ...base, checkpointsAhead: false };

/** Poll times of a task that finishes at `durationMs` (the first poll right after creation, as the workflow does). */
function pollsUntil(durationMs: number, input: PollDelayInput): number[] {
  const times = [0];
  while (times.at(-1)! < durationMs) times.push(times.at(-1)! + nextPollDelayMs({ ...input, elapsedMs: times.at(-1)! }));
  return times;
}

describe('nextPollDelayMs', () => {
  it('starts at the mode profile initial delay while checkpoints may come', () => {
    for (const mode of ['fast', 'standard', 'heavy', 'max'] as const) {
      expect(nextPollDelayMs({ ...base, mode })).toBe(POLL_PROFILES[mode].initialDelayMs);
    }
  });

  it('grows with elapsed time, never shrinks, and stops at the checkpoint watch cap while a checkpoint may come', () => {
    for (const mode of ['standard', 'heavy', 'max'] as const) {
      let previous = 0;
      for (let elapsed = 0; elapsed <= 3 * 3_600_000; elapsed += 30_000) {
        const delay = nextPollDelayMs({ ...base, mode, elapsedMs: elapsed });
        expect(delay).toBeGreaterThanOrEqual(previous);
        expect(delay).toBeLessThanOrEqual(CHECKPOINT_WATCH_MAX_DELAY_MS);
        previous = delay;
      }
      // A checkpoint is seen within 30 s of being asked, whatever the mode (it was up to 3 minutes for max).
      expect(previous).toBe(CHECKPOINT_WATCH_MAX_DELAY_MS);
    }
    // Once no checkpoint can come, the mode's own cap applies again.
    expect(nextPollDelayMs({ ...noCheckpoints, elapsedMs: 3 * 3_600_000 })).toBe(POLL_PROFILES.standard.maxDelayMs);
  });

  it("without checkpoints, waits out the mode's shortest typical duration before the second poll", () => {
    expect(nextPollDelayMs(noCheckpoints)).toBe(POLL_PROFILES.standard.typicalMs[0]);
    expect(nextPollDelayMs({ ...noCheckpoints, elapsedMs: 4 * 60_000 })).toBe(POLL_PROFILES.standard.typicalMs[0] - 4 * 60_000);
    expect(nextPollDelayMs({ ...noCheckpoints, mode: 'fast', elapsedMs: 5_000 })).toBe(2 * 60_000 - 5_000);
  });

  it('sees a standard task finish within a tenth of its time, in at most 10 polls up to 15 minutes and 12 up to 20', () => {
    for (const minutes of [10, 12.5, 15, 17.5, 20]) {
      const duration = minutes * 60_000;
      const times = pollsUntil(duration, noCheckpoints);
      expect(times.length).toBeLessThanOrEqual(minutes <= 15 ? 10 : 12);
      expect(times.at(-1)! - duration).toBeLessThanOrEqual(duration / 10);
    }
  });

  it('sees fast and heavy tasks of typical durations finish within a tenth of their time', () => {
    for (const [mode, minutes] of [
      ['fast', 2],
      ['fast', 3],
      ['fast', 5],
      ['heavy', 30],
      ['heavy', 45],
      ['heavy', 90],
    ] as const) {
      const duration = minutes * 60_000;
      const times = pollsUntil(duration, { ...noCheckpoints, mode });
      expect(times.at(-1)! - duration).toBeLessThanOrEqual(duration / 10);
    }
  });

  it('needs at most 3 status reads for a 15-minute task with a webhook: after creation, maybe one fallback, and after the webhook', () => {
    const beforeWebhook = pollsUntil(15 * 60_000, { ...noCheckpoints, webhookConfigured: true }).filter((time) => time < 15 * 60_000);
    expect(beforeWebhook.length + 1).toBeLessThanOrEqual(3);
    // A lost webhook is caught at the longest typical duration.
    expect(nextPollDelayMs({ ...noCheckpoints, webhookConfigured: true })).toBe(POLL_PROFILES.standard.typicalMs[1]);
  });

  it('polls only as a fallback, four times slower, when a webhook will announce completion and the quiet time is over', () => {
    const elapsedMs = 25 * 60_000;
    const withoutWebhook = nextPollDelayMs({ ...noCheckpoints, elapsedMs });
    expect(nextPollDelayMs({ ...noCheckpoints, elapsedMs, webhookConfigured: true })).toBe(withoutWebhook * WEBHOOK_FALLBACK_FACTOR);
  });

  it('scales the quiet time with an overridden initial delay (a faster service clock)', () => {
    expect(quietUntilMs('standard', false, { initialDelayMs: POLL_PROFILES.standard.initialDelayMs / 100 })).toBe(6_000);
    expect(quietUntilMs('heavy', true)).toBe(90 * 60_000);
  });

  it('keeps polling at the normal pace with a webhook while checkpoints are ahead (they send no webhook)', () => {
    expect(nextPollDelayMs({ ...base, elapsedMs: 60_000, webhookConfigured: true, checkpointsAhead: true })).toBe(
      nextPollDelayMs({ ...base, elapsedMs: 60_000 }),
    );
  });

  it('polls rarely while a checkpoint waits for a person, and more rarely once it is paused', () => {
    expect(nextPollDelayMs({ ...base, status: 'awaiting_input' })).toBe(5 * POLL_PROFILES.standard.maxDelayMs);
    expect(nextPollDelayMs({ ...base, mode: 'heavy', status: 'awaiting_input' })).toBe(AWAITING_INPUT_POLL_DELAY_MS);
    // A day at a standard task's checkpoint: 288 polls (about 3,200 events), not 1,440 (about 16,000).
    expect((24 * 3_600_000) / nextPollDelayMs({ ...base, status: 'awaiting_input' })).toBe(288);
    expect(nextPollDelayMs({ ...base, status: 'paused' })).toBe(10 * POLL_PROFILES.standard.maxDelayMs);
    expect(nextPollDelayMs({ ...base, mode: 'max', status: 'paused' })).toBe(PAUSED_POLL_DELAY_MS);
    expect(nextPollDelayMs({ ...base, status: 'paused', overrides: { initialDelayMs: 100, maxDelayMs: 1_000 } })).toBe(10_000);
  });

  it('honours overrides, keeping the cap at least the initial delay', () => {
    expect(nextPollDelayMs({ ...base, overrides: { initialDelayMs: 200, maxDelayMs: 1_000 } })).toBe(200);
    expect(nextPollDelayMs({ ...noCheckpoints, elapsedMs: 3_600_000, overrides: { initialDelayMs: 200, maxDelayMs: 1_000 } })).toBe(1_000);
    // The checkpoint watch cap scales with the initial delay, as the emulator's faster clock does: 30 s × 200/10,000.
    expect(nextPollDelayMs({ ...base, elapsedMs: 3_600_000, overrides: { initialDelayMs: 200, maxDelayMs: 1_000 } })).toBe(600);
    expect(nextPollDelayMs({ ...base, overrides: { initialDelayMs: 5_000, maxDelayMs: 1_000 } })).toBe(5_000);
  });
});

describe('readRetryDelayMs: reading again after a status read failed for good', () => {
  it("starts at the mode's first poll delay and doubles with each failure in a row", () => {
    expect([1, 2, 3].map((failures) => readRetryDelayMs('fast', failures))).toEqual([5_000, 10_000, 20_000]);
  });

  it("never waits longer than the mode's cap, however many failures", () => {
    expect(readRetryDelayMs('standard', 50)).toBe(60_000);
    expect(readRetryDelayMs('fast', 1_000)).toBe(20_000);
  });

  it('follows the overridden delays (a fast service clock)', () => {
    expect(readRetryDelayMs('heavy', 1, { initialDelayMs: 100, maxDelayMs: 400 })).toBe(100);
    expect(readRetryDelayMs('heavy', 4, { initialDelayMs: 100, maxDelayMs: 400 })).toBe(400);
  });
});
