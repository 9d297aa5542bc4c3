import { EventEmitter } from 'node:events';
import { main } from '../../src/cli';
import { emulatorCommand, emulatorOptionsFrom, serveEmulator } from '../../src/emulator/command';
import { UsageError } from '../../src/shared/usage';

/** The options `rp emulator` starts the emulator with for `argv`: its commander definition, then its checks. */
function optionsFor(argv: string[]) {
  const command = emulatorCommand()
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .action(() => undefined);
  command.parse(argv, { from: 'user' });
  return emulatorOptionsFrom(command.opts());
}

describe('rp emulator arguments', () => {
  it('turns flags into emulator options', () => {
    expect(
      optionsFor(['--port', '8787', '--host=localhost', '--seed', '42', '--speed', '60', '--credits', '5', '--failure-rate', '0.1', '--capacity', '3']),
    ).toEqual({
      port: 8787,
      host: 'localhost',
      seed: 42,
      speed: 60,
      defaultCreditsUsd: 5,
      research: { failureRate: 0.1, capacity: 3 },
    });
  });

  it('keeps a non-numeric seed as text', () => {
    expect(optionsFor(['--seed', 'demo'])).toMatchObject({ seed: 'demo' });
  });

  it.each([
    [['--port', 'abc'], '--port: must be an integer from 0 to 65535 (got "abc")'],
    [['--port', '70000'], '--port: must be an integer from 0 to 65535'],
    [['--host', '0.0.0.0'], '--host: must be a loopback address'],
    [['--speed', '0'], '--speed: must be a positive number'],
    [['--credits', '-1'], '--credits: must be a number of USD >= 0'],
    [['--failure-rate', '1.5'], '--failure-rate: must be a number from 0 to 1'],
    [['--capacity', '2.5'], '--capacity: must be a positive integer'],
    [['--port', '--seed', '1'], '--port: needs a value'],
  ])('rejects %j naming the flag and the rule', (argv, message) => {
    expect(() => optionsFor(argv)).toThrow(UsageError);
    expect(() => optionsFor(argv)).toThrow(message);
  });

  it('prints its usage for --help', async () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await expect(main(['emulator', '--help'])).resolves.toBe(0);
      expect(stdout.mock.calls.map((call) => String(call[0])).join('')).toContain('Usage: rp emulator');
    } finally {
      stdout.mockRestore();
    }
  });
});

describe('serveEmulator', () => {
  it('prints the URL and default key, serves until SIGTERM, then stops', async () => {
    const signals = new EventEmitter();
    const lines: string[] = [];
    const running = serveEmulator(optionsFor(['--seed', '5', '--credits', '7']), { stdout: (text) => lines.push(text), signals });
    await waitFor(() => lines.some((line) => line.startsWith('API key: ')));
    const url = /listening on (\S+)/.exec(lines.join(''))?.[1] ?? '';
    const key = /API key: (\S+)/.exec(lines.join(''))?.[1] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await fetch(`${url}/datasources/categories`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(200);
    const origin = url.replace(/\/v1$/, '');
    const account = await (await fetch(`${origin}/_emulator/accounts/${key}`)).json();
    expect(account).toMatchObject({ creditsUsd: 7 });
    signals.emit('SIGTERM');
    await running;
    expect(lines.at(-1)).toBe('Emulator stopped.\n');
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
    await expect(fetch(`${url}/datasources/categories`)).rejects.toThrow();
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition not met in time');
}
