import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { UsageQuery, UsageResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { GetUsage } from './get-usage.use-case';

/** What the organization's replies spent (CONTRACTS §20). */
@ServiceApiController('usage', 'usage')
export class UsageController {
  constructor(private readonly getUsage: GetUsage) {}

  @Get()
  @ApiOperation({
    summary: 'Tokens, tool calls and cost of ended replies',
    description:
      'Sums of every reply that ended between the UTC days from and to (both included), grouped by end user, ' +
      'agent, day or model, optionally of one user_id or agent_id. Exact: kept per day as replies end.',
  })
  @ApiOkResponse({ type: UsageResponse })
  get(@CurrentCaller() caller: Caller, @Query() query: UsageQuery): Promise<UsageResponse> {
    return this.getUsage.execute(caller, query);
  }
}
