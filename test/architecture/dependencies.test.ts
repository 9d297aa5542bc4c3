/**
 * The import rules of docs/ARCHITECTURE.md, checked on src/ with dependency-cruiser (rules in
 * .dependency-cruiser.js), plus the one rule dependency-cruiser does not state: no cycle between the
 * top-level folders (and top-level files) of src/. The fixtures under ./fixtures break every rule once,
 * so a rule that stops reporting what it forbids fails here too.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.js');
// dependency-cruiser is ES modules only, which Jest's CommonJS runtime cannot load: run its command line.
const CLI = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Dependency {
  resolved: string;
  dependencyTypes: string[];
}
interface Module {
  source: string;
  dependencies: Dependency[];
}
interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}
interface CruiseResult {
  modules: Module[];
  summary: { violations: Violation[] };
}

/** Cruises `src` below `cwd` with the project's rules. */
function cruise(cwd: string): CruiseResult {
  const run = spawnSync(process.execPath, [CLI, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (!run.stdout) throw new Error(`dependency-cruiser gave no result (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as CruiseResult;
}

/** The top-level unit of a path under src/: its first folder, or the file itself (`src/worker.ts` is `worker.ts`). */
function unitOf(file: string): string | undefined {
  if (!file.startsWith('src/')) return undefined;
  const rest = file.slice('src/'.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? rest : `${rest.slice(0, slash)}/`;
}

/**
 * Cycles between top-level units (Tarjan's strongly connected components over every import, type-only
 * and dynamic ones included), each named by its units and one file import per edge inside it.
 */
function folderCycles(result: CruiseResult): string[] {
  const edges = new Map<string, Map<string, string>>();
  for (const module of result.modules) {
    const from = unitOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = unitOf(dependency.resolved);
      if (!to || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${module.source} -> ${dependency.resolved}`);
      edges.set(from, out);
    }
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (unit: string): void => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit)!);
    stack.push(unit);
    onStack.add(unit);
    for (const next of edges.get(unit)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(unit, Math.min(low.get(unit)!, index.get(next)!));
      }
    }
    if (low.get(unit) === index.get(unit)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== unit);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const unit of [...edges.keys()].sort()) if (!index.has(unit)) visit(unit);
  return components.map((component) => {
    const inside = component.flatMap((from) =>
      component.filter((to) => edges.get(from)?.has(to)).map((to) => `  ${from} -> ${to} (${edges.get(from)!.get(to)})`),
    );
    return `${component.join(' ')}\n${inside.join('\n')}`;
  });
}

function describeViolation(violation: Violation): string {
  const cycle = violation.cycle ? ` (cycle: ${[violation.from, ...violation.cycle.map((step) => step.name)].join(' -> ')})` : '';
  return `${violation.from} -> ${violation.to}${cycle}`;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const RULES: string[] = (require(CONFIG) as { forbidden: Array<{ name: string }> }).forbidden.map((rule) => rule.name);

describe('src/ keeps the import rules of docs/ARCHITECTURE.md', () => {
  let result: CruiseResult;
  beforeAll(() => {
    result = cruise(ROOT);
  }, 60_000);

  it('cruises the whole of src/', () => {
    expect(result.modules.filter((module) => module.source.startsWith('src/')).length).toBeGreaterThan(200);
  });

  it.each(RULES)('no import breaks %s', (rule) => {
    expect(result.summary.violations.filter((violation) => violation.rule.name === rule).map(describeViolation)).toEqual([]);
  });

  it('has no cycle between its top-level folders and files', () => {
    expect(folderCycles(result)).toEqual([]);
  });
});

describe('each rule reports an import that breaks it (fixtures)', () => {
  let result: CruiseResult;
  beforeAll(() => {
    result = cruise(path.join(__dirname, 'fixtures'));
  }, 60_000);

  const EXPECTED: Record<string, [from: string, to: RegExp]> = {
    'no-circular': ['src/shared/loop-a.ts', /^src\/shared\/loop-b\.ts$/],
    'shared-at-the-bottom': ['src/shared/uses-api.ts', /^src\/api\/plain\.ts$/],
    'api-on-shared-only': ['src/api/uses-pipelines.ts', /^src\/pipelines\/plain\.ts$/],
    'codec-on-shared-only': ['src/codec/uses-api.ts', /^src\/api\/plain\.ts$/],
    'pipelines-on-api-only': ['src/pipelines/uses-runs.ts', /^src\/runs\/plain\.ts$/],
    'activities-not-workflows': ['src/activities/uses-workflow.ts', /^src\/workflows\/ids-like\.ts$/],
    'workflows-only-activity-types': ['src/workflows/runs-activity.ts', /^src\/activities\/code\.ts$/],
    'pipelines-not-workflows': ['src/pipelines/uses-workflow.ts', /^src\/workflows\/ids-like\.ts$/],
    'domain-is-a-leaf': ['src/domain/runtime-up.ts', /^src\/pipelines\/plain\.ts$/],
    'domain-types-from-below': ['src/domain/types-up.ts', /^src\/workflows\/ids-like\.ts$/],
    'emulator-not-commands': ['src/emulator/uses-cli.ts', /^src\/commands\/usage\.ts$/],
    'emulator-stands-alone': ['src/emulator/uses-domain.ts', /^src\/domain\/types-up\.ts$/],
    'intake-not-activities': ['src/intake/uses-activity.ts', /^src\/activities\/code\.ts$/],
    'no-testing-in-production': ['src/worker.ts', /node_modules\/@temporalio\/testing\//],
    'dev-server-only-from-dev': ['src/worker.ts', /^src\/temporal\/server\.ts$/],
    'dev-loaded-lazily': ['src/cli.ts', /^src\/dev\.ts$/],
    'aws-sdk-loaded-lazily': ['src/activities/uses-aws-sdk.ts', /node_modules\/@aws-sdk\/client-s3\//],
  };

  it('has a fixture for every rule', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...RULES].sort());
  });

  it.each(Object.entries(EXPECTED))('%s reports its fixture', (rule, [from, to]) => {
    const found = result.summary.violations.filter((violation) => violation.rule.name === rule);
    expect(found.map((violation) => ({ from: violation.from, to: violation.to }))).toContainEqual({ from, to: expect.stringMatching(to) });
  });

  it('reports only the fixtures: the allowed imports beside them pass', () => {
    // The domain may name pipelines/ types; the dev server may load @temporalio/testing; the fixture's cli.ts is the only static importer of dev.ts.
    expect(result.summary.violations.filter((violation) => violation.rule.name !== 'no-circular').length).toBe(RULES.length - 1);
  });

  it('finds a cycle between folders that no file cycle shows (runs/ -> intake/ -> runs/)', () => {
    const cycles = folderCycles(result);
    expect(cycles.some((cycle) => cycle.startsWith('intake/ runs/\n'))).toBe(true);
    expect(
      result.summary.violations.filter((violation) => violation.rule.name === 'no-circular').every((violation) => violation.from.startsWith('src/shared/')),
    ).toBe(true);
  });
});
