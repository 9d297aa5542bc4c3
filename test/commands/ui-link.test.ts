import { temporalUiBase, workflowUiLink } from '../../src/commands/common';

describe("the Temporal UI's address for rp run's link", () => {
  test('TEMPORAL_UI_URL wins, without a trailing slash', () => {
    expect(temporalUiBase({ TEMPORAL_UI_URL: 'https://temporal.example.com/ui/' }, 'temporal.example.com:7233')).toBe('https://temporal.example.com/ui');
  });

  test('a server on this machine is taken for a dev server, whose UI is on the gRPC port + 1000', () => {
    expect(temporalUiBase({}, '127.0.0.1:7233')).toBe('http://127.0.0.1:8233');
    expect(temporalUiBase({}, 'localhost:45000')).toBe('http://localhost:46000');
    expect(temporalUiBase({ TEMPORAL_UI_URL: '  ' }, '[::1]:7233')).toBe('http://[::1]:8233');
  });

  test("a remote service's UI is not guessed, nor a port past 65535", () => {
    expect(temporalUiBase({}, 'temporal.internal:7233')).toBeUndefined();
    expect(temporalUiBase({}, '127.0.0.1:65000')).toBeUndefined();
  });

  test('the link names the namespace and the workflow id, encoded', () => {
    expect(workflowUiLink('http://127.0.0.1:8233', 'default', 'pipeline-run/a/b')).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows/pipeline-run%2Fa%2Fb',
    );
  });
});
