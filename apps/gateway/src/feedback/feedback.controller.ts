import { Body, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { FeedbackResponse, ListFeedbackQuery, Page, PutFeedbackDto, ThreadOwnerQuery } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../auth/end-user-token-allowed.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { endUserOf } from '../http/end-user';
import { PagedListing } from '../http/paged-listing';
import { StreamParams } from '../stream/stream.dto';
import { ListFeedback, PutFeedback } from './feedback.use-cases';

/** Feedback on replies (CONTRACTS §20). */
@ServiceApiController('feedback')
export class FeedbackController {
  constructor(
    private readonly putFeedback: PutFeedback,
    private readonly listFeedback: ListFeedback,
  ) {}

  @EndUserTokenAllowed()
  @Put('chat/messages/:message_id/feedback')
  @ApiOperation({
    summary: 'Rate an assistant reply',
    description:
      'rating 1 or -1, an optional comment; one per reply, replaced by a later PUT. Webhook event ' +
      "message.feedback. With user_id (or an end-user token) the reply must be in that end user's thread.",
  })
  @ApiOkResponse({ type: FeedbackResponse })
  @ApiErrors([404])
  put(
    @CurrentCaller() caller: Caller,
    @Param() params: StreamParams,
    @Query() query: ThreadOwnerQuery,
    @Body() body: PutFeedbackDto,
  ): Promise<FeedbackResponse> {
    // An end-user token's user arrives as the query's user_id (pinEndUser).
    return this.putFeedback.execute(caller, params.message_id, body, endUserOf(query, body));
  }

  @Get('feedback')
  @ApiOperation({
    summary: "List the organization's feedback",
    description:
      'Newest reply first. A full page carries an `x-next-cursor` header: pass it as `before` for the next page.',
  })
  @PagedListing(FeedbackResponse)
  list(@CurrentCaller() caller: Caller, @Query() query: ListFeedbackQuery): Promise<Page<FeedbackResponse>> {
    return this.listFeedback.execute(caller, query);
  }
}
