import { AWAITING_INPUT_POLL_DELAY_MS, nextPollDelayMs, PAUSED_POLL_DELAY_MS, POLL_PROFILES, TYPICAL_MAX_DURATION_MS, WEBHOOK_FALLBACK_FACTOR, type PollDelayInput } from '../../src/workflows/polling';

const base: PollDelayInput = { mode: 'standard', status: 'running', elapsedMs: 0, webhookConfigured: false, checkpointsAhead: false };

describe('nextPollDelayMs', () => {
  it('starts at the mode profile initial delay', () => {
    for (const mode of ['fast', 'standard', 'heavy', 'max'] as const) {
      expect(nextPollDelayMs({ ...base, mode })).toBe(POLL_PROFILES[mode].initialDelayMs);
    }
  });

  it('grows with elapsed time, never shrinks, and stops at the mode cap', () => {
    let previous = 0;
    for (let elapsed = 0; elapsed <= 3 * 3_600_000; elapsed += 30_000) {
      const delay = nextPollDelayMs({ ...base, elapsedMs: elapsed });
      expect(delay).toBeGreaterThanOrEqual(previous);
      expect(delay).toBeLessThanOrEqual(POLL_PROFILES.standard.maxDelayMs);
      previous = delay;
    }
    expect(previous).toBe(POLL_PROFILES.standard.maxDelayMs);
  });

  it('keeps a typical 15-minute standard task to a few dozen polls', () => {
    let elapsed = 0;
    let polls = 0;
    while (elapsed < 15 * 60_000) {
      elapsed += nextPollDelayMs({ ...base, elapsedMs: elapsed });
      polls++;
    }
    expect(polls).toBeGreaterThan(10);
    expect(polls).toBeLessThan(40);
  });

  it('polls only as a fallback when a webhook will announce completion and no checkpoint can come', () => {
    // Before the mode's typical end the webhook will come first: the next poll waits until then.
    expect(nextPollDelayMs({ ...base, elapsedMs: 60_000, webhookConfigured: true })).toBe(TYPICAL_MAX_DURATION_MS.standard - 60_000);
    // After it (the webhook may be lost), slower than without a webhook.
    const late = 30 * 60_000;
    expect(nextPollDelayMs({ ...base, elapsedMs: late, webhookConfigured: true })).toBe(nextPollDelayMs({ ...base, elapsedMs: late }) * WEBHOOK_FALLBACK_FACTOR);
  });

  it('makes a fast task with a webhook cost two status polls when it ends on time', () => {
    // Polls: one right after the create; the next would be at 5 minutes; the webhook at 3 minutes wakes the second.
    expect(nextPollDelayMs({ ...base, mode: 'fast', elapsedMs: 1_000, webhookConfigured: true })).toBe(TYPICAL_MAX_DURATION_MS.fast - 1_000);
    expect(nextPollDelayMs({ ...base, mode: 'fast', elapsedMs: 1_000, webhookConfigured: true, overrides: { webhookFirstFallbackMs: 10_000 } })).toBe(WEBHOOK_FALLBACK_FACTOR * POLL_PROFILES.fast.initialDelayMs);
  });

  it('keeps polling at the normal pace with a webhook while checkpoints are ahead (they send no webhook)', () => {
    expect(nextPollDelayMs({ ...base, elapsedMs: 60_000, webhookConfigured: true, checkpointsAhead: true }))
      .toBe(nextPollDelayMs({ ...base, elapsedMs: 60_000 }));
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
    expect(nextPollDelayMs({ ...base, elapsedMs: 3_600_000, overrides: { initialDelayMs: 200, maxDelayMs: 1_000 } })).toBe(1_000);
    expect(nextPollDelayMs({ ...base, overrides: { initialDelayMs: 5_000, maxDelayMs: 1_000 } })).toBe(5_000);
  });
});
