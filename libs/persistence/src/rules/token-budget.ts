/** A spending limit on tokens: what may be spent in all (null: no limit) and what is counted as spent. */
export interface TokenBudget {
  limit: number | null;
  used: number;
}

/** The budgets a reply spends from: its agent's and its organization's (null when the row is gone). */
export interface RunBudgets {
  agent: TokenBudget | null;
  organization: TokenBudget | null;
}

/**
 * A budget is spent once what it counts plus what the running reply spent so far reaches its limit. The reply's
 * own tokens are not in `used` yet: they are counted when the reply ends.
 */
export function isBudgetSpent(budget: TokenBudget | null, replyTokens: number): boolean {
  return budget !== null && budget.limit !== null && budget.used + replyTokens >= budget.limit;
}

/** A run takes no further model step once its agent's or its organization's budget is spent. */
export function isRunOverBudget(budgets: RunBudgets, replyTokens: number): boolean {
  return isBudgetSpent(budgets.agent, replyTokens) || isBudgetSpent(budgets.organization, replyTokens);
}

/** The tokens a reply spent so far: the sum of its stored steps' usage. */
export function replyTokensSpent(steps: readonly { usageTokens: number }[]): number {
  return steps.reduce((sum, step) => sum + step.usageTokens, 0);
}
