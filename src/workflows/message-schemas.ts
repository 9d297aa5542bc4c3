import type * as Messages from '../domain/messages';

// Every workflow evaluates its own copy of the modules it imports and keeps them while it is cached: zod
// and the message schemas weigh about 0.8 MB a workflow and 3 ms to evaluate, against about 70 KB for
// the rest. Loaded on the first message instead, they cost nothing to the many workflows that wait for
// hours before one arrives (a research task hears of its webhook when it completes).
let loaded: typeof Messages | undefined;

/** The schemas of src/domain/messages.ts, evaluated on first use (once per workflow in the sandbox). */
export function messageSchemas(): typeof Messages {
  // A require, not an import: the bundle carries the module, but only a call evaluates it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../domain/messages') as typeof Messages;
  return loaded;
}
