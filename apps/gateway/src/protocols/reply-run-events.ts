import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { RunEvent } from '@app/run-events';
import { OpenReplyStream } from '../stream/use-cases/open-reply-stream.use-case';

/** A reply's run-event lines, or null where the stream wrote a heartbeat (nothing happened for a while). */
export type RunEventOrHeartbeat = RunEvent | null;

/**
 * A reply's run-event lines from the first, live to its end, as the protocols translate them: the reply stream
 * of CONTRACTS §5 (Redis while it holds them, PostgreSQL after), parsed. 404 before anything is read when the
 * caller may not see the reply.
 */
@Injectable()
export class ReplyRunEvents {
  constructor(private readonly openReplyStream: OpenReplyStream) {}

  async open(caller: Caller, replyId: string, userId?: string): Promise<AsyncIterable<RunEventOrHeartbeat>> {
    const lines = await this.openReplyStream.execute(caller, { messageId: replyId, userId });
    return parsed(lines);
  }
}

async function* parsed(
  lines: AsyncIterable<Buffer> & { close(): void },
): AsyncGenerator<RunEventOrHeartbeat> {
  try {
    for await (const line of lines) {
      const event = JSON.parse(line.toString()) as RunEvent | { type: 'heartbeat' };
      yield 'seq' in event ? event : null;
    }
  } finally {
    lines.close();
  }
}
