import { Injectable } from '@nestjs/common';
import { NotFoundError, PutUserBudgetDto, UserBudgetResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { UserBudget, UserBudgetRepository } from '@app/persistence';

export const toUserBudgetResponse = (budget: UserBudget): UserBudgetResponse => ({
  user_id: budget.userId,
  period: budget.period,
  max_tokens: budget.maxTokens,
  used_tokens: budget.usedTokens,
  period_start: budget.periodStart,
});

const budgetNotFound = () => new NotFoundError('Budget not found');

/** PUT, GET and DELETE /budgets/users/{user_id} (CONTRACTS §20): one end user's budget in the key's organization. */
@Injectable()
export class UserBudgets {
  constructor(private readonly budgets: UserBudgetRepository) {}

  async put(caller: Caller, userId: string, body: PutUserBudgetDto): Promise<UserBudgetResponse> {
    return toUserBudgetResponse(await this.budgets.put(caller.orgId, userId, body.period, body.max_tokens));
  }

  async get(caller: Caller, userId: string): Promise<UserBudgetResponse> {
    const budget = await this.budgets.find(caller.orgId, userId);
    if (!budget) throw budgetNotFound();
    return toUserBudgetResponse(budget);
  }

  async delete(caller: Caller, userId: string): Promise<void> {
    if (!(await this.budgets.delete(caller.orgId, userId))) throw budgetNotFound();
  }
}
