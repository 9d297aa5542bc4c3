import { parseSetArguments, resolveParameters } from '../../src/pipelines/parameters';

const specs = { region: { type: 'string' as const, default: 'eu' } };

describe('run parameters from --set and triggers', () => {
  test.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('an inherited property name (%s) is an unknown parameter', (name) => {
    expect(() => resolveParameters(specs, parseSetArguments([`${name}=x`]), { textValues: true })).toThrow(`unknown parameter "${name}"`);
    expect(() => resolveParameters(specs, JSON.parse(`{"${name}":"x"}`) as Record<string, string>)).toThrow(`unknown parameter "${name}"`);
  });

  test('a parameter named like an inherited property is read from its own value only', () => {
    expect(resolveParameters({ constructor: { type: 'string' as const, default: 'd' } }, {})).toEqual({ constructor: 'd' });
  });
});
