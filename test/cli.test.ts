import { readFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../src/cli';

describe('rp', () => {
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;
  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());
  const errors = (): string => stderr.mock.calls.map((call) => String(call[0])).join('');

  it('prints its commands for --help and exits 0', async () => {
    await expect(main(['--help'])).resolves.toBe(0);
    expect(String(stdout.mock.calls[0]?.[0])).toMatch(/emulator[\s\S]*worker[\s\S]*dev/);
  });

  it('prints the package version for --version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    await expect(main(['--version'])).resolves.toBe(0);
    expect(String(stdout.mock.calls[0]?.[0]).trim()).toBe(version);
  });

  it('refuses an unknown command as bad usage (exit code 2), naming it', async () => {
    await expect(main(['frobnicate'])).resolves.toBe(2);
    expect(String(stderr.mock.calls[0]?.[0])).toContain("unknown command 'frobnicate'");
  });

  it('refuses a bad emulator flag as bad usage, naming the flag and the rule', async () => {
    await expect(main(['emulator', '--port', 'abc'])).resolves.toBe(2);
    expect(errors()).toContain('rp: --port: must be an integer from 0 to 65535 (got "abc")');
  });

  it('refuses an unknown flag and a flag without its value, naming the flag', async () => {
    await expect(main(['emulator', '--verbose'])).resolves.toBe(2);
    await expect(main(['emulator', '--port'])).resolves.toBe(2);
    expect(errors()).toContain('rp: --verbose: unknown option (see --help)');
    expect(errors()).toContain('rp: --port: needs a value');
  });

  it('refuses a bad codec-server port as bad usage and starts no codec server without keys and a token', async () => {
    await expect(main(['codec-server', '--port', 'x'])).resolves.toBe(2);
    expect(errors()).toContain('rp: --port: must be an integer from 0 to 65535 (got "x")');
    const saved = { keys: process.env.PAYLOAD_CODEC_KEYS, token: process.env.CODEC_SERVER_TOKEN };
    delete process.env.PAYLOAD_CODEC_KEYS;
    delete process.env.CODEC_SERVER_TOKEN;
    try {
      await expect(main(['codec-server', '--port', '0'])).rejects.toThrow(/PAYLOAD_CODEC_KEYS: is required[\s\S]*CODEC_SERVER_TOKEN: is required/);
    } finally {
      Object.assign(
        process.env,
        Object.fromEntries(Object.entries({ PAYLOAD_CODEC_KEYS: saved.keys, CODEC_SERVER_TOKEN: saved.token }).filter(([, value]) => value !== undefined)),
      );
    }
  });

  it('refuses a bad intake port as bad usage, and an intake without INTAKE_KEY naming the variable', async () => {
    await expect(main(['intake', '--port', 'abc'])).resolves.toBe(2);
    expect(errors()).toContain('rp: --port: must be an integer from 0 to 65535 (got "abc")');
    const saved = process.env.INTAKE_KEY;
    delete process.env.INTAKE_KEY;
    try {
      await expect(main(['intake', '--port', '0'])).rejects.toThrow(/INTAKE_KEY: is required/);
    } finally {
      if (saved !== undefined) process.env.INTAKE_KEY = saved;
    }
  });

  it('refuses a bad worker environment before connecting to anything, naming the variable', async () => {
    const saved = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = 'not an address';
    try {
      await expect(main(['worker'])).rejects.toThrow(/TEMPORAL_ADDRESS: must be host:port/);
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = saved;
    }
  });

  it('refuses a bad EMULATOR_SPEED for dev', async () => {
    process.env.EMULATOR_SPEED = '-3';
    try {
      await expect(main(['dev'])).rejects.toThrow(/EMULATOR_SPEED: must be a positive number/);
    } finally {
      delete process.env.EMULATOR_SPEED;
    }
  });
});
