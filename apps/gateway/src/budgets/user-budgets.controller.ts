import { Body, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { EndUserParams, PutUserBudgetDto, UserBudgetResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';
import { UserBudgets } from './user-budgets.use-case';

/** Token budgets per end user (CONTRACTS §20). */
@ServiceApiController('budgets', 'budgets/users')
export class UserBudgetsController {
  constructor(private readonly budgets: UserBudgets) {}

  @Put(':user_id')
  @ApiOperation({
    summary: "Set an end user's token budget",
    description:
      'Per UTC day or calendar month. A reply of this user, once the period has spent max_tokens, ends with ' +
      'status error and error_code budget_exhausted before any further model call. Replaces an earlier budget.',
  })
  @ApiOkResponse({ type: UserBudgetResponse })
  put(
    @CurrentCaller() caller: Caller,
    @Param() params: EndUserParams,
    @Body() body: PutUserBudgetDto,
  ): Promise<UserBudgetResponse> {
    return this.budgets.put(caller, params.user_id, body);
  }

  @ReadOneRoute(
    ':user_id',
    { summary: "Get an end user's token budget and what the period spent" },
    UserBudgetResponse,
  )
  get(@CurrentCaller() caller: Caller, @Param() params: EndUserParams): Promise<UserBudgetResponse> {
    return this.budgets.get(caller, params.user_id);
  }

  @DeleteOneRoute(
    ':user_id',
    { summary: "Remove an end user's token budget" },
    'Removed: the user spends without a limit of their own.',
  )
  delete(@CurrentCaller() caller: Caller, @Param() params: EndUserParams): Promise<void> {
    return this.budgets.delete(caller, params.user_id);
  }
}
