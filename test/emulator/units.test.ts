import { createRandom, randomUuid } from '../../src/emulator/random';
import { canonicalJson } from '../../src/emulator/stats';
import { systemClock } from '../../src/emulator/clock';
import { trackedClock } from '../../src/emulator/tracked-clock';
import { FakeClock } from '../support/fake-clock';

describe('seeded random', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const draw = (seed: number | string) => {
      const random = createRandom(seed);
      return [random.next(), random.int(1, 6), random.hex(8), random.chance(0.5)];
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw('seed')).toEqual(draw('seed'));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('keeps values in range', () => {
    const random = createRandom(1);
    for (let index = 0; index < 1000; index++) {
      const value = random.next();
      expect(value >= 0 && value < 1).toBe(true);
      const die = random.int(1, 6);
      expect(die >= 1 && die <= 6 && Number.isInteger(die)).toBe(true);
    }
    expect(random.chance(0)).toBe(false);
    expect(random.chance(1)).toBe(true);
  });

  it('makes version-4 shaped UUIDs', () => {
    expect(randomUuid(createRandom(3))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

describe('trackedClock', () => {
  it('cancels every pending timer and schedules nothing afterwards', async () => {
    const base = new FakeClock();
    const clock = trackedClock(base);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('a'), 10);
    clock.setTimeout(() => fired.push('b'), 20);
    await base.advanceTo(base.now() + 10);
    expect(clock.pending()).toBe(1);
    clock.cancelAll();
    clock.setTimeout(() => fired.push('c'), 1);
    await base.advanceTo(base.now() + 100);
    expect(fired).toEqual(['a']);
    expect(clock.pending()).toBe(0);
  });
});

describe('systemClock', () => {
  /** The next process warning's text and type; the warning is kept from the test output. */
  const nextWarning = (): Promise<unknown[]> =>
    new Promise((resolve) => {
      const spy = jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => {
        spy.mockRestore();
        resolve(args);
      });
    });

  it('reports a timer whose work rejects as a process warning instead of an unhandled rejection', async () => {
    const warned = nextWarning();
    systemClock.setTimeout(async () => {
      await Promise.resolve();
      throw new Error('delivery blew up');
    }, 0);
    expect(await warned).toEqual([expect.stringContaining('delivery blew up'), 'EmulatorTimerWarning']);
  });

  it('reports a timer that throws as a process warning instead of an uncaught exception', async () => {
    const warned = nextWarning();
    systemClock.setTimeout(() => {
      throw new Error('scheduler blew up');
    }, 0);
    expect(await warned).toEqual([expect.stringContaining('scheduler blew up'), 'EmulatorTimerWarning']);
  });
});
