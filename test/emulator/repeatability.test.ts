import { startWithClient } from './helpers';

async function session(seed: number) {
  const { emulator, client, close } = await startWithClient({ seed });
  const search = await client.search({ query: 'Acme Robotics revenue' });
  const contents = await client.contents({ urls: ['https://example.org/x'] });
  const task = await client.createTask({ query: 'q', mode: 'fast' });
  const key = emulator.defaultApiKey;
  await close();
  return { key, search, contents, taskId: task.deepresearch_id };
}

describe('seeded runs', () => {
  it('give the same key, ids and results for the same seed', async () => {
    const first = await session(11);
    const second = await session(11);
    expect(second.key).toBe(first.key);
    expect(second.search).toEqual(first.search);
    expect(second.contents).toEqual(first.contents);
    expect(second.taskId).toBe(first.taskId);
  });

  it('give different ids for different seeds', async () => {
    const first = await session(11);
    const second = await session(12);
    expect(second.key).not.toBe(first.key);
    expect(second.search.tx_id).not.toBe(first.search.tx_id);
    expect(second.taskId).not.toBe(first.taskId);
    expect(second.search.results).toEqual(first.search.results);
  });
});
