import { EventScheduler, type ScheduledEvent } from '../../src/emulator/research/scheduler';
import { FakeClock } from '../support/fake-clock';

describe('research event scheduler', () => {
  test('events run in due-time order, each at its own due time, however far the clock jumps', async () => {
    const clock = new FakeClock(0);
    const seen: { kind: string; at: number; now: number }[] = [];
    const scheduler = new EventScheduler(clock, (event) => {
      seen.push({ kind: event.kind, at: event.at, now: clock.now() });
      if (event.kind === 'b') scheduler.schedule({ at: event.at + 5, taskId: 't', generation: 0, kind: 'cascade' });
    });
    scheduler.schedule({ at: 30, taskId: 't', generation: 0, kind: 'c' });
    scheduler.schedule({ at: 10, taskId: 't', generation: 0, kind: 'a' });
    scheduler.schedule({ at: 20, taskId: 't', generation: 0, kind: 'b' });
    await clock.advanceTo(1_000);
    expect(seen.map(({ kind, at }) => [kind, at])).toEqual([
      ['a', 10],
      ['b', 20],
      ['cascade', 25],
      ['c', 30],
    ]);
    expect(clock.pendingTimerCount).toBe(0);
  });

  test('one clock timer serves any number of pending events', () => {
    const clock = new FakeClock(0);
    const scheduler = new EventScheduler(clock, () => undefined);
    for (let index = 0; index < 10_000; index++) scheduler.schedule({ at: 100 + (index % 97), taskId: `t${index}`, generation: 0, kind: 'x' });
    expect(scheduler.size).toBe(10_000);
    expect(clock.pendingTimerCount).toBe(1);
  });

  test('runDue applies what is due before the timer fires, and ties keep the order they were scheduled in', () => {
    let now = 0;
    const timers: (() => void)[] = [];
    const seen: string[] = [];
    const scheduler = new EventScheduler(
      {
        now: () => now,
        setTimeout: (fn) => {
          timers.push(fn);
          return { cancel: () => undefined };
        },
      },
      (event: ScheduledEvent) => seen.push(event.taskId),
    );
    scheduler.schedule({ at: 50, taskId: 'first', generation: 0, kind: 'x' });
    scheduler.schedule({ at: 50, taskId: 'second', generation: 0, kind: 'x' });
    scheduler.schedule({ at: 80, taskId: 'later', generation: 0, kind: 'x' });
    now = 60;
    scheduler.runDue();
    expect(seen).toEqual(['first', 'second']);
  });

  test('close drops pending events and cancels the timer', async () => {
    const clock = new FakeClock(0);
    const seen: string[] = [];
    const scheduler = new EventScheduler(clock, (event) => seen.push(event.kind));
    scheduler.schedule({ at: 10, taskId: 't', generation: 0, kind: 'x' });
    scheduler.close();
    await clock.advanceTo(100);
    expect(seen).toEqual([]);
    expect(clock.pendingTimerCount).toBe(0);
  });
});
