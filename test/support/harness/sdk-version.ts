import workerPackage from '@temporalio/worker/lib/pkg';

/**
 * The exact `@temporalio/worker` version this harness was written against. The harness drives SDK
 * internals (the VM workflow creator, activation and completion shapes) that carry no stability
 * promise, so any other version must be re-checked against docs/TESTING.md before use.
 */
export const HARNESS_SDK_VERSION = '1.24.0';

/** Throws a clear error unless the installed `@temporalio/worker` is exactly {@link HARNESS_SDK_VERSION}. */
export function assertHarnessSdkVersion(installed: string = workerPackage.version): void {
  if (installed !== HARNESS_SDK_VERSION) {
    throw new Error(
      `The in-process workflow harness drives internals of @temporalio/worker ${HARNESS_SDK_VERSION}, ` +
        `but ${installed} is installed. Re-check the facts in docs/TESTING.md and the harness ` +
        `(test/support/harness) against the new SDK, then update HARNESS_SDK_VERSION.`,
    );
  }
}
