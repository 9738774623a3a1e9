import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  BranchResponse,
  EditMessageDto,
  MessageResponse,
  RegenerateReplyDto,
  SetActiveBranchDto,
  ThreadOwnerQuery,
  ThreadResponse,
} from '@app/contracts';
import { EditMessage, ListBranches, RegenerateReply, SetActiveBranch } from '@app/chat';
import { Caller } from '@app/identity';
import { IdempotentWrite } from '@app/persistence';
import { StartsReply } from '../admission/admission.guard';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../auth/end-user-token-allowed.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { IdempotentWriteOf } from '../idempotency/idempotency.interceptor';
import { SafelyRetried } from '../idempotency/safely-retried.decorator';
import { ThreadParams, threadOf } from './thread.params';

const LIVE_REPLY_409 =
  'Thread has a live reply: regenerate and edit wait for none (unless options.multitask_strategy is interrupt, ' +
  'which cancels it first); a branch switch waits until it ended.';

/** Regenerate and edit, and the branches they leave (CONTRACTS §19). */
@ServiceApiController('chat', 'chat')
export class BranchesController {
  constructor(
    private readonly regenerateReply: RegenerateReply,
    private readonly editMessage: EditMessage,
    private readonly listBranches: ListBranches,
    private readonly setActiveBranch: SetActiveBranch,
  ) {}

  @EndUserTokenAllowed()
  @Post(':thread_id/regenerate')
  @HttpCode(200)
  @SafelyRetried()
  @StartsReply()
  @ApiOperation({
    summary: 'Regenerate a reply',
    description:
      'A new reply to the same user message as message_id (an assistant reply; by default the last one the ' +
      'thread shows), answered like a follow-up: the pending reply, whose id is what one streams. The replaced ' +
      'reply and what followed it stay stored as another branch (GET /chat/{thread_id}/branches); the thread ' +
      'now shows the new one. Its run sees only its own branch up to the user message, and nothing of a kept ' +
      "message's steps runs again.",
  })
  @ApiOkResponse({ type: MessageResponse, description: 'The new assistant reply, pending.' })
  @ApiErrors([400, 404, 409, 413], {
    404: 'Thread not found, or message_id is not a message of the thread.',
    409: `${LIVE_REPLY_409} Or the Idempotency-Key is in use.`,
  })
  regenerate(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: RegenerateReplyDto,
    @IdempotentWriteOf() idempotency?: IdempotentWrite,
  ): Promise<MessageResponse> {
    return this.regenerateReply.execute(caller, { ...threadOf(params, query), body }, idempotency);
  }

  @EndUserTokenAllowed()
  @Post(':thread_id/edit')
  @HttpCode(200)
  @SafelyRetried()
  @StartsReply()
  @ApiOperation({
    summary: 'Edit a user message',
    description:
      'A new user message in the place of message_id (a user message of the thread) and a pending reply to it. ' +
      'The edited message and what followed it stay stored as another branch. Answers the thread as it now ' +
      'shows: its last message is the new reply, whose id is what one streams.',
  })
  @ApiOkResponse({ type: ThreadResponse, description: 'The thread, showing the new branch.' })
  @ApiErrors([400, 404, 409, 413], {
    404: 'Thread not found, or message_id is not a message of the thread.',
    409: `${LIVE_REPLY_409} Or the Idempotency-Key is in use.`,
  })
  edit(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: EditMessageDto,
    @IdempotentWriteOf() idempotency?: IdempotentWrite,
  ): Promise<ThreadResponse> {
    return this.editMessage.execute(caller, { ...threadOf(params, query), body }, idempotency);
  }

  @EndUserTokenAllowed()
  @Get(':thread_id/branches')
  @ApiOperation({
    summary: "List a thread's branches",
    description:
      'One item per branch (a leaf of the message tree), in the order they were stored; active is the one the ' +
      'thread shows. A thread never regenerated nor edited has one branch.',
  })
  @ApiOkResponse({ type: [BranchResponse] })
  @ApiErrors([404])
  branches(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
  ): Promise<BranchResponse[]> {
    return this.listBranches.execute(caller, threadOf(params, query));
  }

  @EndUserTokenAllowed()
  @Put(':thread_id/branches/active')
  @ApiOperation({
    summary: 'Switch the branch a thread shows',
    description:
      'The thread shows, and a follow-up continues, the branch ending at leaf_message_id. A message that is ' +
      'followed by another is no leaf (422).',
  })
  @ApiOkResponse({ type: ThreadResponse, description: 'The thread, showing that branch.' })
  @ApiErrors([400, 404, 409, 413], {
    404: 'Thread not found, or leaf_message_id is not a message of the thread.',
    409: LIVE_REPLY_409,
  })
  activate(
    @CurrentCaller() caller: Caller,
    @Param() params: ThreadParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: SetActiveBranchDto,
  ): Promise<ThreadResponse> {
    return this.setActiveBranch.execute(caller, { ...threadOf(params, query), body });
  }
}
