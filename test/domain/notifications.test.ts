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
