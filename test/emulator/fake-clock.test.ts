import { FakeClock } from '../support/fake-clock';

describe('FakeClock', () => {
  it('does not move until advanced, then stops exactly at the target', async () => {
    const clock = new FakeClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.advanceTo(5_000);
    expect(clock.now()).toBe(5_000);
  });

  it('fires due timers in due order, each seeing its own due time as now()', async () => {
    const clock = new FakeClock(0);
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`b@${clock.now()}`), 200);
    clock.setTimeout(() => seen.push(`a@${clock.now()}`), 100);
    clock.setTimeout(() => seen.push(`c@${clock.now()}`), 300);
    await clock.advanceTo(250);
    expect(seen).toEqual(['a@100', 'b@200']);
    expect(clock.nextDueAt()).toBe(300);
  });

  it('fires timers due at the same instant in the order they were set', async () => {
    const clock = new FakeClock(0);
    const seen: number[] = [];
    for (const id of [1, 2, 3]) clock.setTimeout(() => seen.push(id), 50);
    await clock.advanceTo(50);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('never fires a cancelled timer', async () => {
    const clock = new FakeClock(0);
    const fired = jest.fn();
    clock.setTimeout(fired, 10).cancel();
    await clock.advanceTo(100);
    expect(fired).not.toHaveBeenCalled();
    expect(clock.pendingTimerCount).toBe(0);
  });

  it('rejects advanceTo with the error a callback threw, after running the other due callbacks', async () => {
    const clock = new FakeClock(0);
    const after = jest.fn();
    clock.setTimeout(() => {
      throw new Error('emulator tick failed');
    }, 10);
    clock.setTimeout(after, 20);
    await expect(clock.advanceTo(30)).rejects.toThrow('emulator tick failed');
    expect(after).toHaveBeenCalled();
  });
});
