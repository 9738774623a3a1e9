import type { RunGate, TokenBudget } from '@app/persistence';

/**
 * A budget is spent once what it counts plus what the running reply spent so far reaches its limit. The reply's
 * own tokens are not in `used` yet: they are counted when the reply ends.
 */
export function isBudgetSpent(budget: TokenBudget | null, replyTokens: number): boolean {
  return budget !== null && budget.limit !== null && budget.used + replyTokens >= budget.limit;
}

/** A run takes no further model step once its agent's, its organization's or its end user's budget is spent. */
export function isRunOverBudget(gate: RunGate, replyTokens: number): boolean {
  return (
    isBudgetSpent(gate.agentBudget, replyTokens) ||
    isBudgetSpent(gate.organizationBudget, replyTokens) ||
    isBudgetSpent(gate.userBudget, replyTokens)
  );
}

/** The tokens a reply spent so far: the sum of its stored steps' usage. */
export function replyTokensSpent(steps: readonly { usageTokens: number }[]): number {
  return steps.reduce((sum, step) => sum + step.usageTokens, 0);
}
