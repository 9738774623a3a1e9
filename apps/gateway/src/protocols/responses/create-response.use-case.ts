import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { endUserOfCaller } from '../../auth/pin-end-user';
import { AskAgent, invalidProtocolInput } from '../ask-agent.use-case';
import { CreateResponseRequest, parseCreateResponse, PROMPT_VERSION_FIELD } from './create-response.request';
import { ResponseReplies } from './response-replies';
import { ResponseObject, responseIdOf, ResponseTranslation } from './response-translation';

/**
 * POST /openai/v1/responses: a reply of the agent named by `model`, in a new thread, or with
 * `previous_response_id` a follow-up in that response's thread. Answers the Response as created (queued: what
 * a background request answers); how the caller waits for the rest (blocking, streamed) is the request's.
 */
@Injectable()
export class CreateResponse {
  constructor(
    private readonly askAgent: AskAgent,
    private readonly replies: ResponseReplies,
  ) {}

  async execute(
    caller: Caller,
    body: unknown,
  ): Promise<{ created: ResponseObject; request: CreateResponseRequest }> {
    const request = parseCreateResponse(body);
    // An end-user token is its user: `user` may repeat it or be left out (CONTRACTS §17).
    const userId = endUserOfCaller(caller, request.user);
    if (!userId)
      throw invalidProtocolInput(
        ['body', 'user'],
        null,
        'user (the end user) is required with a service key',
      );
    const previous = request.previousResponseId
      ? await this.replies.find(caller, request.previousResponseId, userId)
      : null;
    const asked = await this.askAgent.execute(caller, {
      agentId: request.model,
      content: request.content,
      threadId: previous?.thread.id,
      userId,
      maxSteps: request.maxToolCalls,
      metadata: request.metadata,
      agentVersion:
        request.agentVersion === undefined
          ? undefined
          : { version: request.agentVersion, at: PROMPT_VERSION_FIELD },
    });
    const { header } = await this.replies.find(caller, responseIdOf(asked.replyId));
    return { created: new ResponseTranslation(header).response(), request };
  }
}
