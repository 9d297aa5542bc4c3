import { parsePipelineDefinition, PipelineDefinitionError } from '../../src/pipelines';

const problemsOf = (text: string): string[] => {
  try {
    parsePipelineDefinition(text, 'x.yaml');
    return [];
  } catch (error) {
    if (!(error instanceof PipelineDefinitionError)) throw error;
    return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message}`);
  }
};

describe('pipeline files with many keys', () => {
  test('the duplicate-key check grows linearly: 4 times the keys take well under 16 times as long (a quadratic check takes about 16)', () => {
    const definition = (count: number): string =>
      `name: a\nparameters:\n${Array.from({ length: count }, (_, index) => `  k${index}: { type: string }`).join('\n')}\n`;
    const timeOf = (text: string): number => {
      const started = performance.now();
      const problems = problemsOf(text);
      const elapsed = performance.now() - started;
      expect(problems.join('\n')).not.toContain('unique');
      return elapsed;
    };
    const small = definition(4_000);
    const large = definition(16_000);
    timeOf(small); // warm-up: the first parse compiles the parser's code paths
    // The fastest of three runs of each size, so a pause of a loaded machine does not decide the ratio.
    const best = (text: string): number => Math.min(timeOf(text), timeOf(text), timeOf(text));
    expect(best(large) / best(small)).toBeLessThan(9);
  }, 120_000);

  test('a duplicate key deep in a large map is still named at its line', () => {
    const keys = Array.from({ length: 5_000 }, (_, index) => `  k${index}: { type: string }`);
    keys.push('  k17: { type: string }');
    expect(problemsOf(`name: a\nparameters:\n${keys.join('\n')}\n`)).toContain(
      '5003:3 YAML: key "k17" is given twice in one block (first at line 20); keep one',
    );
  });
});
