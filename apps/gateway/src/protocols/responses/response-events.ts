import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { MessageRepository, Scope } from '@app/persistence';
import { EventStream, mappedStream, ReplyRunEvents, RunEventOrHeartbeat } from '../reply-run-events';
import { ResponseReplies } from './response-replies';
import {
  ResponseHeader,
  ResponseObject,
  ResponseStreamEvent,
  ResponseTranslation,
} from './response-translation';

/** A Responses event, or null where the reply stream wrote a heartbeat. */
export type ResponseEventOrHeartbeat = ResponseStreamEvent | null;

/**
 * A response's events: the reply's run-event lines from the first (Redis while it holds them, PostgreSQL after),
 * through the one translation, from `sequence_number` `startingAfter + 1` on. Since the translation is
 * deterministic, a stream resumed at any time after the reply is exactly the rest of the first one.
 */
@Injectable()
export class ResponseEvents {
  constructor(
    private readonly replies: ResponseReplies,
    private readonly runEvents: ReplyRunEvents,
    private readonly messages: MessageRepository,
  ) {}

  async open(
    caller: Caller,
    responseId: string,
    startingAfter = -1,
  ): Promise<EventStream<ResponseEventOrHeartbeat>> {
    const { reply, header } = await this.replies.find(caller, responseId);
    const lines = await this.runEvents.open(caller, reply.id);
    return mappedStream(lines, () =>
      this.translated({ orgId: caller.orgId }, header, reply.id, lines, startingAfter),
    );
  }

  /** Waits for the reply's end and answers the Response it ended with. */
  async final(caller: Caller, responseId: string): Promise<ResponseObject> {
    let last: ResponseObject | null = null;
    for await (const event of await this.open(caller, responseId)) {
      if (event && (event.type === 'response.completed' || event.type === 'response.failed')) {
        last = event.response as ResponseObject;
      }
    }
    // A stream ends without its last line only when the gateway shuts down under it.
    if (!last) throw new Error('The reply stream ended before the reply');
    return last;
  }

  private async *translated(
    scope: Scope,
    header: ResponseHeader,
    replyId: string,
    lines: AsyncIterable<RunEventOrHeartbeat>,
    startingAfter: number,
  ): AsyncGenerator<ResponseEventOrHeartbeat> {
    const translation = new ResponseTranslation(header);
    for await (const line of lines) {
      if (line === null) {
        yield null;
        continue;
      }
      // The final line does not carry what the reply spent; its row, stored before the line, does.
      const spent = line.type === 'message.completed' ? await this.messages.find(scope, replyId) : null;
      for (const event of translation.next(line, spent ?? undefined)) {
        if (event.sequence_number > startingAfter) yield event;
      }
    }
  }
}
