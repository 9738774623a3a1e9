import { Body, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { DecideApprovalDto, MessageResponse, ThreadOwnerQuery } from '@app/contracts';
import { DecideApproval } from '@app/chat';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../auth/end-user-token-allowed.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { StreamParams } from '../stream/stream.dto';

/** A person's decision on a tool call that waits (CONTRACTS §19). */
@ServiceApiController('chat', 'chat/messages')
export class ApprovalsController {
  constructor(private readonly decideApproval: DecideApproval) {}

  @EndUserTokenAllowed()
  @Post(':message_id/approvals')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve or deny a tool call that waits for a person',
    description:
      "A call of a tool in the agent's approval_required waits: the reply is live with status " +
      'requires_action, its questions ask about each waiting call, and its stream wrote an approval.requested ' +
      'line per call. Once every call of the step is decided the reply runs again on any worker: the stream ' +
      'writes approval.decided lines, then the approved tools run and the model reads {"denied": true, ' +
      '"reason"} for a denied one. A call left unanswered for APPROVAL_TIMEOUT_SECONDS is denied.',
  })
  @ApiOkResponse({
    type: MessageResponse,
    description: 'The reply after the decision: running once every waiting call is decided.',
  })
  @ApiErrors([404, 409], { 409: 'That call is not waiting for a decision (decided already, or none such).' })
  decide(
    @CurrentCaller() caller: Caller,
    @Param() params: StreamParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: DecideApprovalDto,
  ): Promise<MessageResponse> {
    // An end-user token's user is pinned in the query (pinEndUser): the body's user_id must agree with it.
    return this.decideApproval.execute(caller, {
      messageId: params.message_id,
      body,
      userId: query.user_id,
    });
  }
}
