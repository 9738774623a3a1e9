import type { RunGate, TokenBudget } from '@app/persistence';
import { isBudgetSpent, isRunOverBudget, replyTokensSpent } from './token-budget';

const gate = (
  agentBudget: TokenBudget | null,
  organizationBudget: TokenBudget | null,
  userBudget: TokenBudget | null = null,
): RunGate => ({
  archived: false,
  agentBudget,
  organizationBudget,
  userBudget,
});

describe('token budget', () => {
  it('is never spent without a limit or without a row', () => {
    expect(isBudgetSpent({ limit: null, used: 1_000_000 }, 1_000_000)).toBe(false);
    expect(isBudgetSpent(null, 1_000_000)).toBe(false);
  });

  it('is spent once the counted tokens plus the running reply reach the limit', () => {
    expect(isBudgetSpent({ limit: 100, used: 60 }, 39)).toBe(false);
    expect(isBudgetSpent({ limit: 100, used: 60 }, 40)).toBe(true);
    expect(isBudgetSpent({ limit: 100, used: 100 }, 0)).toBe(true);
    expect(isBudgetSpent({ limit: 0, used: 0 }, 0)).toBe(true);
  });

  it("stops a run when the agent, the organization or the reply's end user is over budget", () => {
    const roomy = { limit: 1000, used: 0 };
    const tight = { limit: 50, used: 40 };
    expect(isRunOverBudget(gate(roomy, roomy), 10)).toBe(false);
    expect(isRunOverBudget(gate(tight, roomy), 10)).toBe(true);
    expect(isRunOverBudget(gate(roomy, tight), 10)).toBe(true);
    expect(isRunOverBudget(gate(null, null), 10)).toBe(false);
    expect(isRunOverBudget(gate(roomy, roomy, tight), 10)).toBe(true);
    expect(isRunOverBudget(gate(roomy, roomy, roomy), 10)).toBe(false);
  });

  it("counts a reply's tokens as the sum of its stored steps", () => {
    expect(replyTokensSpent([])).toBe(0);
    expect(replyTokensSpent([{ usageTokens: 12 }, { usageTokens: 30 }])).toBe(42);
  });
});
