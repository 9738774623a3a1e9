import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { CancelReply } from '../cancel-reply';
import { RESPONSE_NOT_FOUND, ResponseReplies } from './response-replies';
import { ResponseEvents } from './response-events';
import { ResponseObject } from './response-translation';

/**
 * POST /openai/v1/responses/{id}/cancel: stops a live reply (CancelReply). Answers the Response once the reply
 * has ended (a worker stops between two steps at most); a finished one as it is.
 */
@Injectable()
export class CancelResponse {
  constructor(
    private readonly replies: ResponseReplies,
    private readonly cancelReply: CancelReply,
    private readonly events: ResponseEvents,
  ) {}

  async execute(caller: Caller, responseId: string): Promise<ResponseObject> {
    const found = await this.replies.find(caller, responseId);
    await this.cancelReply.execute(caller, found, RESPONSE_NOT_FOUND);
    return this.events.final(caller, responseId);
  }
}
