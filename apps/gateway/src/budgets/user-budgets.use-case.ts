import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, PutUserBudgetDto, UserBudgetResponse } from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { endUserHash, recordAudit, UserBudget, UserBudgetRepository } from '@app/persistence';

export const toUserBudgetResponse = (budget: UserBudget): UserBudgetResponse => ({
  user_id: budget.userId,
  period: budget.period,
  max_tokens: budget.maxTokens,
  used_tokens: budget.usedTokens,
  period_start: budget.periodStart,
});

const budgetNotFound = () => new NotFoundError('Budget not found');

/** The audit log names the end user by hash only, so erasing the user leaves the entry whole. */
const endUserTarget = (caller: Caller, userId: string) => ({
  type: 'end_user' as const,
  id: endUserHash(caller.orgId, userId),
});

/** PUT, GET and DELETE /budgets/users/{user_id} (CONTRACTS §20): one end user's budget in the key's organization. */
@Injectable()
export class UserBudgets {
  constructor(
    private readonly db: DataSource,
    private readonly budgets: UserBudgetRepository,
  ) {}

  async put(caller: Caller, userId: string, body: PutUserBudgetDto): Promise<UserBudgetResponse> {
    const budget = await this.db.transaction(async (tx) => {
      const budget = await this.budgets.put(caller.orgId, userId, body.period, body.max_tokens, tx);
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor: auditActorOf(caller),
        action: 'budget.updated',
        target: endUserTarget(caller, userId),
        details: { period: budget.period, max_tokens: budget.maxTokens },
      });
      return budget;
    });
    return toUserBudgetResponse(budget);
  }

  async get(caller: Caller, userId: string): Promise<UserBudgetResponse> {
    const budget = await this.budgets.find(caller.orgId, userId);
    if (!budget) throw budgetNotFound();
    return toUserBudgetResponse(budget);
  }

  async delete(caller: Caller, userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await this.budgets.delete(caller.orgId, userId, tx))) throw budgetNotFound();
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor: auditActorOf(caller),
        action: 'budget.deleted',
        target: endUserTarget(caller, userId),
      });
    });
  }
}
