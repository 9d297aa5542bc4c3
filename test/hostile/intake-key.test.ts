import { ConfigError } from '../../src/config';
import { loadIntakeConfig } from '../../src/intake';

const base = { INTAKE_TOKENS: 'ops:token-0123456789abcdef0123456789', INTAKE_PIPELINES_DIR: 'pipelines' };
const problemOf = (key: string): string => {
  try {
    loadIntakeConfig({ ...base, INTAKE_KEY: key });
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
};

describe('the intake key at start', () => {
  test.each(['a'.repeat(64), 'ab'.repeat(32), '0123'.repeat(16)])('a long key of too few distinct characters (%s) is refused, not echoed', (key) => {
    const problem = problemOf(key);
    expect(problem).toContain('INTAKE_KEY');
    expect(problem).toContain('too little entropy');
    expect(problem).not.toContain(key);
  });

  test('a key from openssl rand -hex 16 is accepted', () => {
    expect(problemOf('9f86d081884c7d659a2feaa0c55ad015')).toBe('accepted');
  });
});
