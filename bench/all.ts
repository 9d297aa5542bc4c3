// The combined benchmark (`npm run bench`): poll efficiency, a pipeline fan-out and rate limits on one
// Temporal dev server, printed as one table with each figure beside its baseline from the same process.
// Arguments (optional): fan-out items (default 1,000), emulator speed for the poll bench (30), the
// service's requests per second for the rate-limit bench (10); `--json` prints the fan-out's figures as
// one JSON object last, `--step=answer` runs the fan-out with Answer items, `--warmup=N` runs N items
// through each fan-out side first, unmeasured. The fan-out runs in a worker process of its own.
import { runFanoutProcess, stepFlag, warmupFlag } from './pipeline-fanout';
import { runPollingBench } from './polling';
import { runRateLimitBench } from './rate-limit';
import { hasFlag, positiveArg, printTable, runIfEntry, withBenchServer } from './table';

runIfEntry(module, async () => {
  const fanoutItems = positiveArg(0, 'fan-out items', 1_000, true);
  const speed = positiveArg(1, 'emulator speed', 30);
  const perSecond = positiveArg(2, 'requests per second', 10, true);
  const started = Date.now();
  await withBenchServer({ preciseTimers: true }, async (server) => {
    const polling = await runPollingBench(server, { speed });
    // The fan-out's worker is a process of its own, as `rp worker` is: its CPU and RSS are not the other benches'.
    const fanout = await runFanoutProcess(server, { items: fanoutItems, step: stepFlag(), warmup: warmupFlag() });
    const rate = await runRateLimitBench(server, { perSecond });
    printTable([...polling, ...fanout.rows, ...rate]);
    process.stdout.write(
      `(all figures measured in this run, ${((Date.now() - started) / 1000).toFixed(0)} s, the fan-out's in a worker process of its own; see bench/README.md for what each means)\n`,
    );
    // The fan-out's figures, pipeline beside the bare loop, last: what a script checks.
    if (hasFlag('json') && fanout.summary) process.stdout.write(`${JSON.stringify(fanout.summary)}\n`);
  });
});
