/** A stream that may be a terminal (process.stdout, process.stderr, a test's stand-in). */
export interface MaybeTerminal {
  isTTY?: boolean;
}

/**
 * Whether text written to `stream` may carry ANSI colours: only on a terminal, never with NO_COLOR set
 * to a non-empty value (https://no-color.org) or on TERM=dumb. Every coloured output of the project asks
 * this, so piped output and NO_COLOR=1 are plain text.
 */
export function colourFor(stream: MaybeTerminal, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
