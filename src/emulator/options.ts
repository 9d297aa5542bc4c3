import { formatPath } from './validation';
import { z } from 'zod';
import { isLoopbackHost } from '../api/schemas/webhook-url';
import type { Clock } from './clock';
import { faultConfig } from './faults';
import { rateLimitConfig } from './rate-limit';
import { researchOptions, type ResearchOptionsInput } from './research';

const PERMISSIONS = ['inference', 'increased_max_results'] as const;

/** One account: its key, organisation, balance, permissions and plan. */
export const accountOption = z.strictObject({
  key: z
    .string()
    .min(8, 'must be at least 8 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  organization: z.string().min(1).optional(),
  creditsUsd: z.number().min(0, 'must be at least 0').finite(),
  permissions: z.array(z.enum(PERMISSIONS)).optional(),
  subscription: z.boolean().optional(),
});

const isClock = (value: unknown): value is Clock =>
  typeof value === 'object' &&
  value !== null &&
  'now' in value &&
  typeof value.now === 'function' &&
  'setTimeout' in value &&
  typeof value.setTimeout === 'function';

/** The emulator's options; every field is optional. */
export const emulatorOptionsSchema = z
  .strictObject({
    port: z.int('must be an integer').min(0).max(65535, 'must be from 0 to 65535').optional(),
    host: z
      .string()
      .refine((host) => isLoopbackHost(host), 'must be a loopback address (127.0.0.1, localhost or ::1)')
      .optional(),
    seed: z.union([z.int(), z.string().min(1)]).optional(),
    clock: z.custom<Clock>(isClock, 'must be a Clock ({ now(), setTimeout() })').optional(),
    speed: z.number().positive('must be a positive number').finite().optional(),
    accounts: z
      .array(accountOption)
      .min(1, 'needs at least one account')
      .optional()
      .superRefine((accounts, ctx) => {
        const seen = new Set<string>();
        accounts?.forEach((account, index) => {
          if (seen.has(account.key)) ctx.addIssue({ code: 'custom', path: [index, 'key'], message: 'duplicate key' });
          seen.add(account.key);
        });
      }),
    /** Balance of the generated default account (when `accounts` is not given); 100 USD by default. */
    defaultCreditsUsd: z.number().min(0, 'must be at least 0').finite().optional(),
    rateLimit: rateLimitConfig.optional(),
    faults: faultConfig.optional(),
    /** Largest accepted request body in bytes (413 beyond). */
    maxBodyBytes: z.int().positive().optional(),
    /** Real-time pause between Answer stream events, in ms. */
    streamDelayMs: z.number().min(0).optional(),
    /** Where internal errors (500s) are reported; defaults to stderr. */
    log: z.custom<(line: string) => void>((value) => typeof value === 'function', 'must be a function').optional(),
    /** DeepResearch tunables (capacity, durations, failureRate, webhooks...), validated by the research part's schema. */
    research: researchOptions.optional(),
  })
  .refine((options) => !(options.clock && options.speed !== undefined), { path: ['speed'], message: 'give clock or speed, not both' })
  .refine((options) => !(options.accounts && options.defaultCreditsUsd !== undefined), {
    path: ['defaultCreditsUsd'],
    message: 'applies only without accounts; set creditsUsd on each account instead',
  });

/** What `startEmulator` accepts. */
export type EmulatorOptions = Omit<z.input<typeof emulatorOptionsSchema>, 'research'> & { research?: ResearchOptionsInput };
/** The options after validation and defaults. */
export type ParsedEmulatorOptions = z.output<typeof emulatorOptionsSchema>;

/** Invalid emulator options; the message names each field and its rule. */
export class EmulatorOptionsError extends Error {
  constructor(readonly issues: ReadonlyArray<{ path: string; message: string }>) {
    super(`invalid emulator options: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`);
    this.name = 'EmulatorOptionsError';
  }
}

/** Validates options, throwing `EmulatorOptionsError` naming each bad field. */
export function parseEmulatorOptions(options: unknown): ParsedEmulatorOptions {
  const result = emulatorOptionsSchema.safeParse(options ?? {});
  if (result.success) return result.data;
  throw new EmulatorOptionsError(result.error.issues.map((issue) => ({ path: formatPath(issue.path) || '(options)', message: issue.message })));
}

export { formatPath };
