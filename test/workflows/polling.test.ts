import {
  aimNextLook,
  CHECKPOINT_WATCH_MAX_DELAY_MS,
  AWAITING_INPUT_POLL_DELAY_MS,
  nextGridPointMs,
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

/**
 * Poll times of a task that finishes at `durationMs`, as the workflow reads it: no read at creation (its
 * answer gave the status), the first after the first delay, each read `overheadMs` after its timer fired
 * (the worker's own delay: workflow task, activity, HTTP).
 */
function pollsUntil(durationMs: number, input: PollDelayInput, overheadMs = 0): number[] {
  const times: number[] = [];
  let at = nextPollDelayMs({ ...input, elapsedMs: 0 });
  for (;;) {
    at += overheadMs;
    times.push(at);
    if (at >= durationMs) return times;
    at += nextPollDelayMs({ ...input, elapsedMs: at });
  }
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

  it('reads a standard task of 15 minutes at most 7 times without a webhook (8 with the read that fetches its outputs), seeing it finish within a tenth of its time', () => {
    for (const overheadMs of [0, 1_000, 5_000]) {
      for (const minutes of [10, 12.5, 15, 17.5, 20]) {
        const duration = minutes * 60_000;
        const times = pollsUntil(duration, noCheckpoints, overheadMs);
        expect(times.length).toBeLessThanOrEqual(minutes <= 15 ? 7 : 11);
        expect(times.at(-1)! - duration).toBeLessThanOrEqual(duration / 10);
      }
    }
  });

  it('sees fast tasks of 2 to 5 minutes finish within 3% of their time plus one poll of overhead, in fewer reads than a 5-second loop', () => {
    for (const overheadMs of [0, 3_000]) {
      for (let seconds = 120; seconds <= 300; seconds += 7) {
        const duration = seconds * 1000;
        const times = pollsUntil(duration, { ...noCheckpoints, mode: 'fast' }, overheadMs);
        expect(times.at(-1)! - duration).toBeLessThanOrEqual(duration * 0.03 + overheadMs);
        expect(times.length).toBeLessThan(duration / 5_000);
      }
    }
    // The 3-minute fast task: 13 reads (the official clients' 5-second loop: 37).
    expect(pollsUntil(3 * 60_000, { ...noCheckpoints, mode: 'fast' }, 1_000)).toHaveLength(13);
  });

  it('sees heavy tasks of typical durations finish within a tenth of their time', () => {
    for (const minutes of [30, 45, 90]) {
      const duration = minutes * 60_000;
      const times = pollsUntil(duration, { ...noCheckpoints, mode: 'heavy' });
      expect(times.at(-1)! - duration).toBeLessThanOrEqual(duration / 10);
    }
  });

  it("keeps polls on a grid fixed in time since creation: the worker's delay in one poll does not push the next ones later", () => {
    const step = (at: number) => Math.min(60_000, Math.max(10_000, Math.round(at / 10)));
    expect(nextGridPointMs(600_000, 600_000, step, 60_000)).toBe(660_000);
    // A poll that ran 4 s late still has the next one on the grid, not 60 s after it.
    expect(nextGridPointMs(600_000, 664_000, step, 60_000)).toBe(720_000);
    expect(nextPollDelayMs({ ...noCheckpoints, elapsedMs: 664_000 })).toBe(56_000);
    // Before the steps reach the cap they grow with the time: 100, 110, 121 s…
    expect(nextGridPointMs(100_000, 100_000, (at) => Math.round(at / 10), 1e9)).toBe(110_000);
    expect(nextGridPointMs(100_000, 110_000, (at) => Math.round(at / 10), 1e9)).toBe(121_000);
  });

  it('does not read a 15-minute task with a webhook before it could be done: the webhook is its one look', () => {
    const beforeWebhook = pollsUntil(15 * 60_000, { ...noCheckpoints, webhookConfigured: true }).filter((time) => time < 15 * 60_000);
    expect(beforeWebhook).toEqual([]);
    // A lost webhook is caught at the longest typical duration.
    expect(nextPollDelayMs({ ...noCheckpoints, webhookConfigured: true })).toBe(POLL_PROFILES.standard.typicalMs[1]);
  });

  it('polls only as a fallback, four times slower, when a webhook will announce completion and the quiet time is over', () => {
    // 20 minutes is a grid point of both: the quiet time's end with a webhook, and on the minute grid without.
    const elapsedMs = 20 * 60_000;
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

describe('aimNextLook: reads that reach the service on schedule', () => {
  const fast: PollDelayInput = { mode: 'fast', status: 'running', elapsedMs: 150_000, webhookConfigured: false, checkpointsAhead: false };

  it("asks for the read as early as the last read's round trip, so it reaches the service at the schedule's time", () => {
    const plain = aimNextLook({ ...fast, leadMs: 0, lastAimMs: 0 });
    expect(plain).toEqual({ aimMs: 155_000, delayMs: 5_000 });
    expect(aimNextLook({ ...fast, leadMs: 800, lastAimMs: 0 })).toEqual({ aimMs: 155_000, delayMs: 4_200 });
  });

  it("never leads by more than the mode's first delay, nor aims two reads at one time", () => {
    // A round trip of 60 s (a stalled worker) leads by 5 s at most.
    expect(aimNextLook({ ...fast, leadMs: 60_000, lastAimMs: 0 })).toEqual({ aimMs: 160_000, delayMs: 5_000 });
    // The last read was aimed at 155 s and came back quickly: the next aims past it.
    expect(aimNextLook({ ...fast, elapsedMs: 154_500, leadMs: 100, lastAimMs: 155_000 }).aimMs).toBe(160_000);
  });

  it('sees a fast task within one step of the schedule (5 s, or a fortieth of its time) whatever steady round trip the reads take', () => {
    for (const lagMs of [0, 1_000, 3_000, 4_500]) {
      for (let seconds = 120; seconds <= 300; seconds += 11) {
        const duration = seconds * 1000;
        let lastAimMs = 0;
        let lead = 0;
        let at = 0;
        let seenAt: number | undefined;
        for (let reads = 0; reads < 100 && seenAt === undefined; reads++) {
          const next = aimNextLook({ ...fast, elapsedMs: at, leadMs: lead, lastAimMs });
          lastAimMs = next.aimMs;
          // The read reaches the service half its round trip after it was asked for, and returns after the whole.
          const reachesAt = at + next.delayMs + lagMs / 2;
          if (reachesAt >= duration) seenAt = reachesAt;
          at += next.delayMs + lagMs;
          lead = lagMs;
        }
        // Without the lead a read would reach the service a whole round trip late; with it, half at most.
        expect(seenAt! - duration).toBeLessThanOrEqual(Math.max(5_000, duration / 40) + lagMs / 2);
      }
    }
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
