import { EmulatorHttpError, type Account, type Accounts, type Permission } from './types';

/** How an account is declared in the emulator's options. */
export interface AccountSpec {
  key: string;
  organization: string;
  creditsUsd: number;
  permissions: readonly Permission[];
  subscription: boolean;
}

/** The spec's 402 text. */
export const INSUFFICIENT_CREDITS = 'Insufficient credits. Please top up your account.';

// Money is kept in whole micro-dollars so repeated small charges do not drift.
const toMicros = (usd: number): number => Math.round(usd * 1_000_000);
const fromMicros = (micros: number): number => micros / 1_000_000;

/** USD rounded to whole micro-dollars, as every charge and price is kept. */
export function roundUsd(usd: number): number {
  return fromMicros(toMicros(usd));
}

/** A charge recorded against an account (kept for operators and tests; keys are never part of it). */
export interface ChargeRecord {
  organization: string;
  usd: number;
  reason: string;
  /** What the charge was for, where a call names it (an Answer's or Search's query): the books per item. */
  subject?: string;
  at: number;
}

/** The emulator's accounts: credits, permissions and plan per key, plus top-ups for operators. */
export class AccountBook implements Accounts {
  private readonly byKey = new Map<string, Account>();
  private readonly charges: ChargeRecord[] = [];

  constructor(
    specs: readonly AccountSpec[],
    private readonly now: () => number,
  ) {
    for (const spec of specs) {
      this.byKey.set(spec.key, {
        key: spec.key,
        organization: spec.organization,
        creditsUsd: fromMicros(toMicros(spec.creditsUsd)),
        permissions: new Set(spec.permissions),
        subscription: spec.subscription,
      });
    }
  }

  /** The account for a key, or undefined when the key is unknown. */
  find(key: string): Account | undefined {
    return this.byKey.get(key);
  }

  /** Every account, in declaration order. */
  all(): Account[] {
    return [...this.byKey.values()];
  }

  /** Deducts `usd`, or throws 402 and deducts nothing when the balance is short. */
  charge(account: Account, usd: number, reason: string, subject?: string): void {
    const cost = toMicros(usd);
    if (cost <= 0) return;
    const balance = toMicros(account.creditsUsd);
    if (cost > balance) throw EmulatorHttpError.of(402, INSUFFICIENT_CREDITS);
    account.creditsUsd = fromMicros(balance - cost);
    this.charges.push({ organization: account.organization, usd: fromMicros(cost), reason, ...(subject !== undefined ? { subject } : {}), at: this.now() });
  }

  /** Adds credits to the account of `key`; returns the new balance, or undefined for an unknown key. */
  topUp(key: string, usd: number): number | undefined {
    const account = this.byKey.get(key);
    if (!account) return undefined;
    account.creditsUsd = fromMicros(toMicros(account.creditsUsd) + toMicros(usd));
    return account.creditsUsd;
  }

  /** Sets the balance of the account of `key`; returns it, or undefined for an unknown key. */
  setBalance(key: string, usd: number): number | undefined {
    const account = this.byKey.get(key);
    if (!account) return undefined;
    account.creditsUsd = fromMicros(toMicros(usd));
    return account.creditsUsd;
  }

  /** Total charged so far, in USD, over all accounts. */
  totalChargedUsd(): number {
    return fromMicros(this.charges.reduce((sum, record) => sum + toMicros(record.usd), 0));
  }

  /** A copy of the charge log. */
  chargeLog(): ChargeRecord[] {
    return this.charges.map((record) => ({ ...record }));
  }
}
