import { Module } from '@nestjs/common';
import { UserBudgetsController } from './user-budgets.controller';
import { UserBudgets } from './user-budgets.use-case';

/** /budgets/users/{user_id}. */
@Module({
  controllers: [UserBudgetsController],
  providers: [UserBudgets],
})
export class UserBudgetsModule {}
