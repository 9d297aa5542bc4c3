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

/** The workflow sources, by file name. */
async function workflowSources(): Promise<Array<readonly [file: string, text: string]>> {
  const { readdir, readFile } = await import('node:fs/promises');
  const dir = `${__dirname}/../../src/workflows`;
  return Promise.all(
    (await readdir(dir)).filter((file) => file.endsWith('.ts')).map(async (file) => [file, await readFile(`${dir}/${file}`, 'utf8')] as const),
  );
}

describe('workflow activity proxies', () => {
  async function proxyCalls(): Promise<Array<[file: string, argument: string]>> {
    return (await workflowSources()).flatMap(([file, text]) =>
      [...text.matchAll(/proxyActivities\b(?:<[^>]+>)?\(([^)]*)\)/g)].map((match): [string, string] => [file, match[1]!.trim()]),
    );
  }

  it('use only the named presets (so the audit above covers every paid call)', async () => {
    const calls = await proxyCalls();
    expect(calls.length).toBeGreaterThan(5);
    for (const [file, argument] of calls) expect({ file, argument, preset: argument in ACTIVITY_OPTION_PRESETS }).toEqual({ file, argument, preset: true });
  });

  it("are declared once, one per preset, in activity-proxies.ts (a call's retries are chosen by the proxy it goes through)", async () => {
    const calls = await proxyCalls();
    expect(calls.filter(([file]) => file !== 'activity-proxies.ts')).toEqual([]);
    expect(calls.map(([, argument]) => argument).sort()).toEqual(Object.keys(ACTIVITY_OPTION_PRESETS).sort());
  });

  // A paid call that waits on a slow answer must heartbeat, or a worker that dies mid-call is noticed only
  // at the attempt's timeout and the retry (which may pay again) comes late or beside a call still running.
  it('send every paid call (task create, item call, item batch, batch add) through a preset that heartbeats', async () => {
    const sources = await workflowSources();
    const proxies = new Map(
      [...sources.find(([file]) => file === 'activity-proxies.ts')![1].matchAll(/export const (\w+) = proxyActivities<\w+>\((\w+)\)/g)].map((match) => [
        match[1]!,
        match[2]!,
      ]),
    );
    const paid = sources.flatMap(([file, text]) =>
      [...text.matchAll(/\b(\w+)\.(createResearchTask|runPipelineItems?|addResearchBatchTasks)\(/g)].map((match) => ({
        file,
        proxy: match[1]!,
        activity: match[2]!,
      })),
    );
    expect(new Set(paid.map(({ activity }) => activity))).toEqual(
      new Set(['createResearchTask', 'runPipelineItem', 'runPipelineItems', 'addResearchBatchTasks']),
    );
    for (const call of paid) {
      const preset = proxies.get(call.proxy);
      expect({ ...call, preset, heartbeats: preset !== undefined && ACTIVITY_OPTION_PRESETS[preset]?.heartbeatTimeout !== undefined }).toEqual({
        ...call,
        preset,
        heartbeats: true,
      });
    }
  });
});
