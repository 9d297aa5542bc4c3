import { budgetRaiseLimitProblem } from '../domain/budget';
import type { BudgetLedger } from '../domain/pipeline-types';
import { messageSchemas } from './message-schemas';
import type { CreateDecision, WebhookNotice } from './types';

// Signals cannot be refused to their sender, and a handler that throws fails the workflow task again
// and again: every signal payload is checked here, with the schemas of src/domain/messages.ts, and a bad
// one is recorded instead of acted on.

/** A webhook notice the intake sends, or why the payload is not one. */
export function parseWebhookNotice(value: unknown): { notice: WebhookNotice } | { problem: string } {
  const { checkMessage, webhookNotice } = messageSchemas();
  const checked = checkMessage(webhookNotice, value);
  return 'problem' in checked ? checked : { notice: checked.value };
}

/** An operator's create decision: exactly `{adoptTaskId: "<id>"}` or `{createAgain: true}`. */
export function parseCreateDecision(value: unknown): { decision: CreateDecision } | { problem: string } {
  const { CREATE_DECISION_RULE, createDecision, describeValue } = messageSchemas();
  const checked = createDecision.safeParse(value);
  return checked.success ? { decision: checked.data } : { problem: `${CREATE_DECISION_RULE}, got ${describeValue(value)}` };
}

/** Why a budget raise is refused (undefined when it may be applied): a positive amount, above the budget now. */
export function budgetRaiseProblem(ledger: BudgetLedger, raise: unknown): string | undefined {
  const { budgetRaise, checkMessage } = messageSchemas();
  const checked = checkMessage(budgetRaise, raise);
  return 'problem' in checked ? checked.problem : budgetRaiseLimitProblem(ledger, checked.value);
}
