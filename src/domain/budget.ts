import type { BudgetLedger, BudgetRaise, PlannedItem } from './pipeline-types';

// Money is kept in whole micro-dollars while adding, so many small charges never drift past the budget.
const micros = (usd: number): number => Math.round(usd * 1_000_000);
const usd = (value: number): number => value / 1_000_000;

/** USD rounded to the micro-dollar, as the ledger keeps it. */
export const roundUsd = (value: number): number => usd(micros(value));

/** `a + b` in USD, added in whole micro-dollars so many small amounts never drift. */
export function addUsd(a: number, b: number): number {
  return usd(micros(a) + micros(b));
}

/** USD still free to reserve: the budget less what was spent and what in-flight items hold. */
export function availableUsd(ledger: BudgetLedger): number {
  return usd(micros(ledger.budgetUsd) - micros(ledger.spentUsd) - micros(ledger.reservedUsd));
}

/** True when reserving `priceUsd` keeps spent plus reserved within the budget. */
export function fitsBudget(ledger: BudgetLedger, priceUsd: number): boolean {
  return micros(ledger.spentUsd) + micros(ledger.reservedUsd) + micros(priceUsd) <= micros(ledger.budgetUsd);
}

/** The ledger with `priceUsd` held for an item about to start. */
export function reserve(ledger: BudgetLedger, priceUsd: number): BudgetLedger {
  return { ...ledger, reservedUsd: usd(micros(ledger.reservedUsd) + micros(priceUsd)) };
}

/** The ledger after an item ended: its reservation released, what it really cost spent. */
export function settle(ledger: BudgetLedger, reservedUsd: number, actualUsd: number): BudgetLedger {
  return {
    ...ledger,
    reservedUsd: usd(Math.max(0, micros(ledger.reservedUsd) - micros(reservedUsd))),
    spentUsd: usd(micros(ledger.spentUsd) + micros(Math.max(0, actualUsd))),
  };
}

/** Why a well-formed budget raise is refused (undefined when it may be applied): a budget only goes up. */
export function budgetRaiseLimitProblem(ledger: BudgetLedger, raise: BudgetRaise): string | undefined {
  if ('budgetUsd' in raise && micros(raise.budgetUsd) <= micros(ledger.budgetUsd)) {
    return `budgetUsd: must be more than the current budget of ${ledger.budgetUsd} USD (a budget can only be raised)`;
  }
  return undefined;
}

/** The ledger with a checked raise applied. */
export function raiseBudget(ledger: BudgetLedger, raise: BudgetRaise): BudgetLedger {
  const budgetUsd = 'budgetUsd' in raise ? raise.budgetUsd : usd(micros(ledger.budgetUsd) + micros(raise.addUsd));
  return { ...ledger, budgetUsd };
}

/** How many times the dearest unbounded-price item seen so far the next one reserves. */
export const UNBOUNDED_RESERVE_FACTOR = 2;

/**
 * What an item reserves: its price when the service bounds it; for an item whose price has no bound,
 * twice the dearest such item the run has seen (at least its own floor), or just its floor before any
 * was seen (the window then starts such items one at a time: see `decideNext`).
 */
export function reserveFor(item: PlannedItem, observedMaxUsd: number | undefined): number {
  if (!item.priceUnbounded || observedMaxUsd === undefined) return item.reserveUsd;
  return Math.max(item.reserveUsd, roundUsd(observedMaxUsd * UNBOUNDED_RESERVE_FACTOR));
}
