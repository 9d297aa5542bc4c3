import { notifyTargets, runEventId, waitEvents } from '../../src/domain/notifications';

describe('run notifications: which events a run sends', () => {
  const idle = { checkpoint: [], operator: [] };

  it('tells a budget wait once, however long it lasts, and again after the run went on and stopped anew', () => {
    let memory = { budget: false, person: [] as readonly string[] };
    const look = (phase: string) => {
      const decided = waitEvents(memory, { phase, waiting: idle });
      memory = decided.memory;
      return decided.events;
    };
    expect(look('running')).toEqual([]);
    expect(look('waiting_for_budget')).toEqual(['run.waiting_for_budget']);
    expect(look('waiting_for_budget')).toEqual([]);
    expect(look('running')).toEqual([]);
    expect(look('credits_exhausted')).toEqual(['run.waiting_for_budget']);
  });

  it('tells each item newly waiting for a person, not the ones already told', () => {
    const first = waitEvents({ budget: false, person: [] }, { phase: 'running', waiting: { checkpoint: ['a'], operator: [] } });
    expect(first.events).toEqual(['run.waiting_for_person']);
    const same = waitEvents(first.memory, { phase: 'running', waiting: { checkpoint: ['a'], operator: [] } });
    expect(same.events).toEqual([]);
    const another = waitEvents(same.memory, { phase: 'running', waiting: { checkpoint: ['a'], operator: ['b'] } });
    expect(another.events).toEqual(['run.waiting_for_person']);
    // Answered, then waiting again at its next checkpoint: told again.
    const answered = waitEvents(another.memory, { phase: 'running', waiting: idle });
    expect(waitEvents(answered.memory, { phase: 'running', waiting: { checkpoint: ['a'], operator: [] } }).events).toEqual(['run.waiting_for_person']);
  });

  it('does not tell again, after continue-as-new, the waits the run told of before it (the memory is carried)', () => {
    const told = waitEvents({ budget: false, person: [] }, { phase: 'waiting_for_budget', waiting: { checkpoint: ['a'], operator: [] } });
    expect(told.events).toEqual(['run.waiting_for_budget', 'run.waiting_for_person']);
    // The run drains, still waiting for budget and for the person: nothing new to tell.
    const draining = waitEvents(told.memory, { phase: 'draining', waiting: { checkpoint: ['a'], operator: [] } });
    expect(draining).toEqual({ events: [], memory: told.memory });
    // The next execution starts from the carried memory: the same waits are not told again, a new one is.
    const next = waitEvents(draining.memory, { phase: 'waiting_for_budget', waiting: { checkpoint: ['a'], operator: [] } });
    expect(next.events).toEqual([]);
    expect(waitEvents(next.memory, { phase: 'waiting_for_budget', waiting: { checkpoint: ['a', 'b'], operator: [] } }).events).toEqual([
      'run.waiting_for_person',
    ]);
    // A drain that did not start in a budget wait does not count as one.
    expect(waitEvents({ budget: false, person: [] }, { phase: 'draining', waiting: idle }).memory.budget).toBe(false);
  });

  it('keeps event ids apart across events and executions, and free of header-unsafe characters', () => {
    const a = runEventId({ runId: '0192-ab', type: 'run.completed', sequence: 0 });
    expect(a).toMatch(/^[A-Za-z0-9_]+$/);
    expect(runEventId({ runId: '0192-ab', type: 'run.completed', sequence: 0 })).toBe(a);
    expect(runEventId({ runId: '0192-ab', type: 'run.completed', sequence: 1 })).not.toBe(a);
    expect(runEventId({ runId: '0192-ac', type: 'run.completed', sequence: 0 })).not.toBe(a);
  });

  it("sends to the definition's receivers and the trigger's, each once", () => {
    expect(notifyTargets(['https://a.example/h'], ['https://b.example/h', 'https://a.example/h'])).toEqual(['https://a.example/h', 'https://b.example/h']);
    expect(notifyTargets(undefined, undefined)).toEqual([]);
  });
});
