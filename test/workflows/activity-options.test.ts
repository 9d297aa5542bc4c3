import { msToNumber } from '@temporalio/common/lib/time';
import { ATTEMPT_REPORT_MARGIN_MS, KEEP_ALIVE_EVERY_MS } from '../../src/activities/context';
import { ACTIVITY_OPTION_PRESETS } from '../../src/workflows/activity-options';

// Every workflow proxies its activities through one of these presets (a lint-like check below keeps it so).
describe.each(Object.entries(ACTIVITY_OPTION_PRESETS))('the %s activity options', (_name, options) => {
  const startToClose = msToNumber(options.startToCloseTimeout!);

  it('bound each attempt, leaving its service call (which ends 5 s before) real time', () => {
    expect(startToClose).toBeGreaterThanOrEqual(ATTEMPT_REPORT_MARGIN_MS + 20_000);
  });

  it('with a heartbeat timeout, leave room for at least three keep-alive beats within it', () => {
    if (options.heartbeatTimeout === undefined) return;
    expect(msToNumber(options.heartbeatTimeout)).toBeGreaterThanOrEqual(3 * KEEP_ALIVE_EVERY_MS);
    expect(msToNumber(options.heartbeatTimeout)).toBeLessThan(startToClose);
  });
});

describe('workflow activity proxies', () => {
  async function proxyCalls(): Promise<Array<[file: string, argument: string]>> {
    const { readdir, readFile } = await import('node:fs/promises');
    const dir = `${__dirname}/../../src/workflows`;
    const sources = await Promise.all((await readdir(dir)).filter((file) => file.endsWith('.ts')).map(async (file) => [file, await readFile(`${dir}/${file}`, 'utf8')] as const));
    return sources.flatMap(([file, text]) => [...text.matchAll(/proxyActivities\b(?:<[^>]+>)?\(([^)]*)\)/g)].map((match): [string, string] => [file, match[1]!.trim()]));
  }

  it('use only the named presets (so the audit above covers every paid call)', async () => {
    const calls = await proxyCalls();
    expect(calls.length).toBeGreaterThan(5);
    for (const [file, argument] of calls) expect({ file, argument, preset: argument in ACTIVITY_OPTION_PRESETS }).toEqual({ file, argument, preset: true });
  });

  it('are declared once, one per preset, in activity-proxies.ts (a call\'s retries are chosen by the proxy it goes through)', async () => {
    const calls = await proxyCalls();
    expect(calls.filter(([file]) => file !== 'activity-proxies.ts')).toEqual([]);
    expect(calls.map(([, argument]) => argument).sort()).toEqual(Object.keys(ACTIVITY_OPTION_PRESETS).sort());
  });
});
