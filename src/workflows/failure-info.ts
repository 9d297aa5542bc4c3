import { ApplicationFailure } from '@temporalio/workflow';

/** The `type` of the application failure behind an activity failure, if any. */
export function failureType(error: unknown): string | undefined {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

/** The most telling message of an activity failure: its cause's, else its own. */
export function failureMessage(error: unknown): string {
  const cause = (error as { cause?: { message?: string } } | undefined)?.cause;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
