import { IsInt, IsString } from 'class-validator';
import { END_USER_ID_MAX_CHARS } from './end-user-token.dto';
import { EXACT_INTEGER_MAX, Ge, Le, MaxChars, MinChars, OneOf } from './rules';

export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriodName = (typeof BUDGET_PERIODS)[number];

/** PUT /budgets/users/{user_id} (CONTRACTS §20). */
export class PutUserBudgetDto {
  @OneOf(BUDGET_PERIODS)
  period: BudgetPeriodName;

  @IsInt()
  @Ge(0)
  @Le(EXACT_INTEGER_MAX)
  max_tokens: number;
}

/** The `{user_id}` of the /budgets/users routes. */
export class EndUserParams {
  @IsString()
  @MinChars(1)
  @MaxChars(END_USER_ID_MAX_CHARS)
  user_id: string;
}
