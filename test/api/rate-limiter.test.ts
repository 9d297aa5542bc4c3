import { ResearchApiError, ResearchClient } from '../../src/api';
import { holdFor, KeyRateLimiter, reserveSlot, spaceFromSent, type PaceState, type RateRule } from '../../src/api/rate-limiter';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';

const fresh: PaceState = { nextAt: Number.NEGATIVE_INFINITY, holdUntil: Number.NEGATIVE_INFINITY };

/** Send times of `count` calls asked for at `askedAt` (each waits as told), under `rule`. */
function sendTimes(rule: RateRule, askedAt: readonly number[], start: PaceState = fresh): number[] {
  let state = start;
  return askedAt.map((now) => {
    const decision = reserveSlot(state, rule, now, Number.POSITIVE_INFINITY);
    if (decision.kind !== 'send') throw new Error('refused');
    state = decision.state;
    return now + decision.waitMs;
  });
}

describe('reserveSlot: pacing calls of one key', () => {
  it('spaces calls asked at once one interval apart, in the order they asked', () => {
    expect(sendTimes({ requestsPerSecond: 10, burst: 1 }, [0, 0, 0, 0])).toEqual([0, 100, 200, 300]);
  });

  it('lets `burst` calls go at once after a quiet spell, then paces', () => {
    expect(sendTimes({ requestsPerSecond: 10, burst: 3 }, [1_000, 1_000, 1_000, 1_000, 1_000])).toEqual([1_000, 1_000, 1_000, 1_100, 1_200]);
  });

  it('never sends more than the rate over any stretch, whatever the asking pattern', () => {
    const rule = { requestsPerSecond: 10, burst: 1 };
    const asked = Array.from({ length: 200 }, (_, index) => Math.floor(index / 7) * 330 + (index % 3) * 17);
    const times = sendTimes(rule, asked);
    for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(100 - 1e-9);
  });

  it('refuses a call whose turn is further than it may wait, and keeps its turn for the next', () => {
    const rule = { requestsPerSecond: 2, burst: 1 };
    const first = reserveSlot(fresh, rule, 0, 100);
    expect(first).toMatchObject({ kind: 'send', waitMs: 0 });
    const state = (first as { state: PaceState }).state;
    expect(reserveSlot(state, rule, 0, 100)).toEqual({ kind: 'refuse', waitMs: 500 });
    expect(reserveSlot(state, rule, 0, 500)).toMatchObject({ kind: 'send', waitMs: 500 });
  });

  it("waits out the service's Retry-After, then restarts one interval apart (no burst into the service)", () => {
    const rule = { requestsPerSecond: 10, burst: 5 };
    const held = holdFor(fresh, 0, 1_000);
    expect(sendTimes(rule, [10, 10, 10], held)).toEqual([1_000, 1_100, 1_200]);
    // Without a rule of its own a call waits only for the hold.
    expect(reserveSlot(held, undefined, 250, 10_000)).toEqual({ kind: 'send', waitMs: 750, state: held });
    expect(reserveSlot(held, undefined, 250, 100)).toEqual({ kind: 'refuse', waitMs: 750 });
    // A hold that has passed changes nothing.
    expect(reserveSlot(held, rule, 5_000, 0)).toMatchObject({ kind: 'send', waitMs: 0 });
  });

  it('keeps the longer of two holds', () => {
    expect(holdFor(holdFor(fresh, 0, 2_000), 500, 1_000).holdUntil).toBe(2_000);
  });
});

describe('spaceFromSent: calls that wake late go at the rate again', () => {
  /** When calls that may go at `wokeAt` (each waiting as told) actually go, under `rule`. */
  function sentTimes(rule: RateRule, wokeAt: readonly number[]): number[] {
    let sentNextAt = Number.NEGATIVE_INFINITY;
    return wokeAt.map((now) => {
      const spaced = spaceFromSent(sentNextAt, rule, now);
      sentNextAt = spaced.sentNextAt;
      return now + spaced.waitMs;
    });
  }

  it('adds no wait to calls that wake at their turns, jitter of up to half an interval included', () => {
    const rule = { requestsPerSecond: 10, burst: 1 };
    const woke = [0, 103, 200, 348, 400, 502, 640];
    expect(sentTimes(rule, woke)).toEqual(woke);
  });

  it('after the process was busy for a second, the calls whose turns passed go at the rate again, not at once', () => {
    // Turns at 0, 100, 200 … : calls 1-10 all wake at 1,050. The half interval of slack lets the second go 50 ms early.
    const woke = [0, ...Array.from({ length: 10 }, () => 1_050)];
    expect(sentTimes({ requestsPerSecond: 10, burst: 1 }, woke)).toEqual([0, 1_050, 1_100, 1_200, 1_300, 1_400, 1_500, 1_600, 1_700, 1_800, 1_900]);
    // With a burst of 3, three go at once, then the rate.
    expect(sentTimes({ requestsPerSecond: 10, burst: 3 }, woke).slice(1, 6)).toEqual([1_050, 1_050, 1_050, 1_100, 1_200]);
  });
});

describe('KeyRateLimiter', () => {
  it('keeps the slower rule and the smaller burst of the clients sharing a key', () => {
    const limiter = new KeyRateLimiter();
    limiter.adopt({ requestsPerSecond: 20, burst: 5 });
    limiter.adopt({ requestsPerSecond: 10, burst: 8 });
    limiter.adopt(undefined);
    expect(limiter.rule).toEqual({ requestsPerSecond: 10, burst: 5 });
  });

  it('holds every call of the key after a 429 until its Retry-After has passed, and refuses those that cannot wait so long', async () => {
    let now = 0;
    const limiter = new KeyRateLimiter(() => now);
    limiter.adopt({ requestsPerSecond: 1_000, burst: 1 });
    limiter.hold(5_000);
    expect(await limiter.acquire(true, 1_000)).toBe(5_000);
    // A client of the key without a rule of its own waits for the hold too.
    expect(await limiter.acquire(false, 1_000)).toBe(5_000);
    now = 5_000;
    expect(await limiter.acquire(true, 0)).toBeUndefined();
  });
});

describe('a client with requestsPerSecond against the emulator limiting the key', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: 'client-rate', defaultCreditsUsd: 1_000, rateLimit: { requestsPerSecond: 20, burst: 20 } });
  });
  afterAll(async () => emulator.close());

  const search = (client: ResearchClient, index: number) =>
    client.search({ query: `paced ${index}`, search_type: 'web', max_num_results: 1, max_price: 1 }).then(
      () => 'ok' as const,
      (error: unknown) => (error instanceof ResearchApiError ? error : Promise.reject(error)),
    );

  it('sends 60 calls made at once by two clients of the key at the rate, none answered 429', async () => {
    // Two clients of one key in one process share the pace: each alone at 20/s would pass the limit together.
    const clients = [0, 1].map(() => new ResearchClient({ baseUrl: emulator.url, apiKey: emulator.defaultApiKey, requestsPerSecond: 20, timeoutMs: 10_000 }));
    const started = Date.now();
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, index) => search(clients[index % 2]!, index)));
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(clients.map((client) => client.close()));
    expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
    expect(emulator.stats.snapshot().requests.search?.['429'] ?? 0).toBe(0);
    // 60 calls at 20/s, evenly spaced: about 3 s (the first goes at once).
    expect(seconds).toBeGreaterThan(2.8);
    expect(seconds).toBeLessThan(6);
  });

  it('calls waiting while the process is busy for a second go at the rate afterwards, not at once: none answered 429', async () => {
    const strict = await startEmulator({ seed: 'client-stall', defaultCreditsUsd: 1_000, rateLimit: { requestsPerSecond: 20, burst: 2 } });
    const client = new ResearchClient({ baseUrl: strict.url, apiKey: strict.defaultApiKey, requestsPerSecond: 20, timeoutMs: 20_000 });
    try {
      const calls = Promise.all(Array.from({ length: 40 }, (_, index) => search(client, index)));
      // The event loop blocked for a second (a long GC, a busy worker): about 20 calls' turns pass meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const until = Date.now() + 1_000;
      while (Date.now() < until);
      const outcomes = await calls;
      expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
      expect(strict.stats.snapshot().requests.search?.['429'] ?? 0).toBe(0);
    } finally {
      await client.close();
      await strict.close();
    }
  });

  it('refuses unsent, as a 429 with its wait, a call whose turn is beyond half its time limit', async () => {
    const client = new ResearchClient({ baseUrl: emulator.url, apiKey: 'rk_other_key_for_refusal', requestsPerSecond: 1, timeoutMs: 1_000 });
    const before = emulator.stats.snapshot().requests.search ?? {};
    const outcomes = await Promise.all([0, 1].map((index) => search(client, index)));
    await client.close();
    // The first call went (and the unknown key got its 401); the second's turn was 1 s away, past 500 ms.
    const refused = outcomes.find((outcome): outcome is ResearchApiError => outcome instanceof ResearchApiError && outcome.code === 'client_rate_limit');
    expect(refused).toMatchObject({ status: 429, retryable: true, kind: 'http' });
    expect(refused!.retryAfterMs).toBeGreaterThan(900);
    const after = emulator.stats.snapshot().requests.search ?? {};
    const sent = Object.values(after).reduce((sum, count) => sum + count, 0) - Object.values(before).reduce((sum, count) => sum + count, 0);
    expect(sent).toBe(1);
  });
});
