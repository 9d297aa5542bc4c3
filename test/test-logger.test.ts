import { Runtime } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import { installTestRuntime, redactingTestLogger } from './support/test-logger';

const TOKEN = 'CiQwMWEyMTMxMS1mODlhLTcwM2YtYjllYS00MzRjMmM1MGEwZjc=';

/** What `logger` writes to stderr (after `flush`) for an SDK warning about a failed activity, and for an INFO line. */
function printed(logger: Logger, flush = () => {}): string {
  const written: string[] = [];
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  try {
    logger.warn('Activity failed', { activityType: 'notifyRun', taskToken: TOKEN, secret: 'whsec_c2VjcmV0LXZhbHVlLTAxMjM0NTY3', apiKey: 'rk_test_0123456789' });
    logger.info('Worker state changed', { state: 'RUNNING' });
    flush();
  } finally {
    write.mockRestore();
  }
  return written.join('');
}

function expectRedacted(text: string): void {
  expect(text).toContain('Activity failed');
  expect(text).toContain('notifyRun');
  expect(text).toContain('[REDACTED]');
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain('whsec_');
  expect(text).not.toContain('rk_test_');
  // Below warnings: nothing.
  expect(text).not.toContain('Worker state changed');
}

// Test workers and activity environments log through these: what they print is in every test run's output.
describe("the tests' worker logging", () => {
  afterAll(async () => Runtime.instance().shutdown());

  it("scenario workers' runtime prints SDK warnings on stderr with the activity's task token and secret fields redacted", () => {
    installTestRuntime();
    const runtime = Runtime.instance();
    // The runtime buffers its lines to merge them with Core's; a flush writes them out.
    expectRedacted(printed(runtime.logger, () => runtime.flushLogs()));
  });

  it('the logger of activity test environments redacts the same', () => {
    expectRedacted(printed(redactingTestLogger('warn')));
  });
});
