import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { PipelineRunState } from '../domain/pipeline-types';
import { settledCount } from '../workflows/pipeline-progress';

/** One line of progress, for terminals without a bar (CI logs, pipes). */
export function progressLine(state: PipelineRunState): string {
  const total = state.total === undefined ? `${state.counts.read}+` : String(state.total);
  const eta = state.etaMs === undefined ? '' : `, about ${Math.ceil(state.etaMs / 1000)}s left`;
  return `${state.pipeline}/${state.runKey}: ${state.phase}, ${settledCount(state.counts)}/${total} settled (${state.counts.completed} completed, ${state.counts.failed} failed, ${state.counts.running} running), spent ${state.ledger.spentUsd.toFixed(2)}/${state.ledger.budgetUsd.toFixed(2)} USD${eta}${state.detail ? ` — ${state.detail}` : ''}`;
}

/** Shows a run's progress: a bar on a terminal, plain lines (on change) elsewhere. */
export interface ProgressView {
  update(state: PipelineRunState): void;
  /** Prints a line above the bar (or among the plain lines) without breaking it. */
  note(line: string): void;
  stop(): void;
}

/** A cli-progress bar on a TTY; plain lines, printed when they change, otherwise. */
export function progressView(stream: NodeJS.WriteStream | { isTTY?: boolean; write(text: string): unknown }): ProgressView {
  if (!stream.isTTY) {
    let last = '';
    return {
      update: (state) => {
        const line = progressLine(state);
        if (line !== last) stream.write(`${line}\n`);
        last = line;
      },
      note: (line) => void stream.write(`${line}\n`),
      stop: () => undefined,
    };
  }
  // A MultiBar of one bar: it can print notes above the bar while it runs.
  const bars = new MultiBar(
    {
      stream: stream as NodeJS.WriteStream,
      format: '{pipeline} [{bar}] {value}/{total} | {completed} ok {failed} failed {running} running | {spent}/{budget} USD | ETA {eta_formatted} | {phase}',
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.shades_classic,
  );
  let bar: SingleBar | undefined;
  let started = false;
  return {
    update: (state) => {
      const total = state.total ?? Math.max(state.counts.read, 1);
      const payload = {
        pipeline: `${state.pipeline}/${state.runKey}`,
        completed: state.counts.completed,
        failed: state.counts.failed,
        running: state.counts.running,
        spent: state.ledger.spentUsd.toFixed(2),
        budget: state.ledger.budgetUsd.toFixed(2),
        phase: state.phase,
      };
      bar ??= bars.create(total, settledCount(state.counts), payload);
      started = true;
      bar.setTotal(total);
      bar.update(settledCount(state.counts), payload);
    },
    note: (line) => {
      if (started) bars.log(`${line}\n`);
      else (stream as NodeJS.WriteStream).write(`${line}\n`);
    },
    stop: () => {
      if (started) bars.stop();
    },
  };
}
