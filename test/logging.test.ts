import { Writable } from 'node:stream';
import { bundleWorkflowCode } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { configSecrets, createLogger, PinoTemporalLogger } from '../src/logging';

const API_KEY = 'rk_live_never_in_logs_0123456789';
const CODEC_KEY = Buffer.alloc(32, 7).toString('base64');

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  const config = loadConfig({
    RESEARCH_API_BASE_URL: 'https://api.research.example/v1',
    RESEARCH_API_KEY: API_KEY,
    PAYLOAD_CODEC_KEYS: `k1:${CODEC_KEY}`,
    CODEC_SERVER_TOKEN: 'codec-token-0123456789abcdef',
    LOG_LEVEL: 'debug',
  });

  test('writes one JSON object a line with level, time and message, from LOG_LEVEL', () => {
    const { lines, destination } = capture();
    const logger = createLogger(config, { destination });
    logger.trace('too fine');
    logger.debug({ workflowId: 'w1' }, 'polled');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'debug', msg: 'polled', workflowId: 'w1', service: 'research-pipelines', time: expect.any(String) }),
    ]);
  });

  test('redacts API keys, authorization headers, webhook secrets and codec keys by field and by value', () => {
    const { lines, destination } = capture();
    const logger = createLogger(config, { secrets: configSecrets(config), destination });
    logger.info(
      {
        apiKey: API_KEY,
        request: { headers: { authorization: `Bearer ${API_KEY}` } },
        webhookSecret: 'whsec_abcdef0123456789',
        config: { CODEC_SERVER_TOKEN: 'x' },
      },
      'calling the service',
    );
    logger.warn(`retrying with key ${API_KEY} and header Bearer abc.def-123`);
    logger.error({ error: new Error(`refused key ${API_KEY}`), note: `codec key ${CODEC_KEY}` }, 'failed');
    const text = JSON.stringify(lines);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('whsec_abcdef0123456789');
    expect(text).not.toContain(CODEC_KEY);
    expect(text).not.toContain('abc.def-123');
    expect(lines[0]).toMatchObject({ apiKey: '[REDACTED]', webhookSecret: '[REDACTED]', request: { headers: { authorization: '[REDACTED]' } } });
    expect(lines[1]!.msg).toBe('retrying with key [REDACTED] and header Bearer [REDACTED]');
    expect(lines[2]).toMatchObject({ error: { type: 'Error', message: 'refused key [REDACTED]' }, note: 'codec key [REDACTED]' });
  });

  test('Temporal connection secrets (API key, TLS key data, gRPC headers) are scrubbed from messages', () => {
    const temporal = loadConfig({
      TEMPORAL_API_KEY: 'tcld_api_key_never_in_logs',
      TEMPORAL_TLS_CLIENT_CERT_DATA: 'certificate',
      TEMPORAL_TLS_CLIENT_KEY_DATA: 'PRIVATE KEY never_in_logs_0123',
      TEMPORAL_GRPC_META_AUTHORIZATION_TOKEN: 'grpc_header_never_in_logs',
    });
    const { lines, destination } = capture();
    createLogger(temporal, { secrets: configSecrets(temporal), destination }).warn(
      `key tcld_api_key_never_in_logs, PRIVATE KEY never_in_logs_0123, header grpc_header_never_in_logs`,
    );
    expect(JSON.stringify(lines)).not.toContain('never_in_logs');
  });

  test('LOG_FORMAT=pretty is coloured on a terminal only, and never with NO_COLOR set (https://no-color.org)', () => {
    const pretty = { log: { level: 'info' as const, format: 'pretty' as const } };
    const written = (destination: { isTTY?: boolean }, env: Record<string, string>): string => {
      const chunks: string[] = [];
      const stream = Object.assign(
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            chunks.push(chunk.toString());
            done();
          },
        }),
        destination,
      );
      createLogger(pretty, { destination: stream, env }).info({ workflowId: 'w1' }, 'worker polling');
      return chunks.join('');
    };
    const ESCAPE = '\u001b[';
    expect(written({ isTTY: true }, {})).toMatch(ESCAPE);
    expect(written({ isTTY: true }, {})).toContain('worker polling');
    for (const [terminal, env] of [
      [{ isTTY: true }, { NO_COLOR: '1' }],
      [{ isTTY: true }, { TERM: 'dumb' }],
      [{ isTTY: false }, {}],
      [{}, {}],
    ] as const) {
      const text = written(terminal, env);
      expect(text).toMatch(/INFO.*worker polling/);
      expect(text).not.toMatch(ESCAPE);
    }
    // NO_COLOR set but empty does not count (the convention's wording).
    expect(written({ isTTY: true }, { NO_COLOR: '' })).toMatch(ESCAPE);
  });

  test('the Temporal logger adapter forwards SDK levels and metadata to pino', () => {
    const { lines, destination } = capture();
    const temporal = new PinoTemporalLogger(createLogger(config, { secrets: configSecrets(config), destination }));
    temporal.log('WARN', 'Activity failed', { sdkComponent: 'activity', activityType: 'createResearchTask', apiKey: API_KEY });
    temporal.info('Workflow started', { workflowId: 'w1' });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'Activity failed', sdkComponent: 'activity', activityType: 'createResearchTask', apiKey: '[REDACTED]' }),
      expect.objectContaining({ level: 'info', msg: 'Workflow started', workflowId: 'w1' }),
    ]);
  });

  test("the workflow bundler's webpack report goes out at DEBUG: an INFO reader sees one short line per bundle", async () => {
    const { lines, destination } = capture();
    const info = createLogger({ log: { level: 'info', format: 'json' } }, { destination });
    await bundleWorkflowCode({ workflowsPath: require.resolve('../src/workflows'), logger: new PinoTemporalLogger(info) });
    expect(lines.map((line) => line.msg)).toEqual(['Workflow bundle created']);
    expect(Math.max(...lines.map((line) => JSON.stringify(line).length))).toBeLessThan(300);
  }, 60_000);
});
