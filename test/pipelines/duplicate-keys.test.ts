import { DuplicateKeyFinder, duplicateKeysMessage } from '../../src/pipelines/item-keys';

describe('DuplicateKeyFinder', () => {
  it('reports every key met twice or more with all its places, in the order they repeat', () => {
    const finder = new DuplicateKeyFinder();
    for (const [key, where] of [
      ['a', 'f:2'],
      ['b', 'f:3'],
      ['c', 'f:4'],
      ['b', 'f:5'],
      ['a', 'f:6'],
      ['b', 'f:7'],
    ] as const)
      finder.add(key, where);
    expect(finder.duplicates()).toEqual([
      { key: 'b', where: ['f:3', 'f:5', 'f:7'] },
      { key: 'a', where: ['f:2', 'f:6'] },
    ]);
    expect(finder.repeats).toBe(3);
  });

  it('reports nothing for unique keys', () => {
    const finder = new DuplicateKeyFinder();
    for (let index = 0; index < 1_000; index++) finder.add(`k${index}`, `f:${index + 2}`);
    expect(finder.duplicates()).toEqual([]);
    expect(finder.repeats).toBe(0);
  });

  it('keeps its report short: at most 5 places a key and 20 keys, and says there are more', () => {
    const finder = new DuplicateKeyFinder();
    for (let copy = 0; copy < 10; copy++) for (let key = 0; key < 30; key++) finder.add(`k${key}`, `f:${copy * 30 + key + 2}`);
    const duplicates = finder.duplicates();
    expect(duplicates).toHaveLength(20);
    expect(duplicates.every(({ where }) => where.length === 5)).toBe(true);
    expect(duplicateKeysMessage(duplicates, finder.repeats)).toMatch(
      /^duplicate item keys: "k0" \(f:2, f:32, f:62, f:92, f:122\); .*; and more\. Keys must be unique in a run/,
    );
  });
});
