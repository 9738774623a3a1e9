import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { storedReplyLines } from '@app/run-events';
import { ResponseReplies } from './response-replies';
import { ResponseObject, responseStatusOf, ResponseTranslation } from './response-translation';

/**
 * GET /openai/v1/responses/{id}: the Response as PostgreSQL holds it, through the translation the stream uses,
 * so a finished one is exactly what its stream ended with. A live one shows what is stored so far.
 */
@Injectable()
export class GetResponse {
  constructor(private readonly replies: ResponseReplies) {}

  async execute(caller: Caller, responseId: string): Promise<ResponseObject> {
    const { reply, header } = await this.replies.find(caller, responseId);
    const lines = storedReplyLines(reply, {
      status: reply.status,
      content: reply.content,
      error_code: reply.errorCode,
    });
    const translation = new ResponseTranslation(header);
    // A live reply's rebuilt lines end with a completion it has not reached: left out.
    for (const line of reply.live ? lines.slice(0, -1) : lines) translation.next(line, reply);
    const response = translation.response();
    return reply.live ? { ...response, status: responseStatusOf(reply.status) } : response;
  }
}
