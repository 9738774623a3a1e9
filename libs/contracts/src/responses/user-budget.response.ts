import { ApiProperty } from '@nestjs/swagger';
import { BUDGET_PERIODS, BudgetPeriodName } from '../dto/user-budget.dto';

/** An end user's budget and what the user spent in its current period. */
export class UserBudgetResponse {
  @ApiProperty()
  user_id: string;
  @ApiProperty({ enum: BUDGET_PERIODS, description: 'A UTC day or calendar month.' })
  period: BudgetPeriodName;
  @ApiProperty({ type: 'integer' })
  max_tokens: number;
  @ApiProperty({
    type: 'integer',
    description: 'Tokens of the ended replies of the current period and of the replies still running.',
  })
  used_tokens: number;
  @ApiProperty({ type: 'string', format: 'date', description: 'First UTC day of the current period.' })
  period_start: string;
}
