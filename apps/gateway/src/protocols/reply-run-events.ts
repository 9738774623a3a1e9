import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { ReplyStream, RunEvent } from '@app/run-events';
import { OpenReplyStream } from '../reply-stream/open-reply-stream.use-case';

/** A reply's run-event lines, or null where the stream wrote a heartbeat (nothing happened for a while). */
export type RunEventOrHeartbeat = RunEvent | null;

/** What a protocol reads from a reply stream, and can stop reading, as the reply stream itself (ReplyStream). */
export interface EventStream<T> extends AsyncIterable<T> {
  close(): void;
  /** Whether it ended before the reply did because it was closed (the client left, or a shutdown). */
  readonly interrupted: boolean;
}

/** The same stream, each item mapped by `items` (which iterates the source stream). */
export function mappedStream<T>(
  source: EventStream<unknown> | ReplyStream,
  items: () => AsyncIterator<T>,
): EventStream<T> {
  return {
    close: () => source.close(),
    get interrupted() {
      return source.interrupted;
    },
    [Symbol.asyncIterator]: items,
  };
}

/**
 * A stream of `items` read from `source` that may end on its own before the reply does (a protocol's run that ends
 * where the reply waits for a person): `items` returns true when it ended so, and the stream is then complete,
 * not interrupted, though it closed its source.
 */
export function endingStream<T>(
  source: EventStream<unknown>,
  items: AsyncGenerator<T, boolean>,
): EventStream<T> {
  let ended = false;
  async function* tracked(): AsyncGenerator<T> {
    ended = yield* items;
  }
  const iterator = tracked();
  return {
    close: () => source.close(),
    get interrupted() {
      return !ended && source.interrupted;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
}

/**
 * A reply's run-event lines from the first, live to its end, as the protocols translate them: the reply stream
 * of CONTRACTS §5 (Redis while it holds them, PostgreSQL after), parsed. 404 before anything is read when the
 * caller may not see the reply.
 */
@Injectable()
export class ReplyRunEvents {
  constructor(private readonly openReplyStream: OpenReplyStream) {}

  async open(caller: Caller, replyId: string, userId?: string): Promise<EventStream<RunEventOrHeartbeat>> {
    const lines = await this.openReplyStream.execute(caller, { messageId: replyId, userId });
    return mappedStream(lines, () => parsed(lines));
  }
}

async function* parsed(lines: ReplyStream): AsyncGenerator<RunEventOrHeartbeat> {
  for await (const line of lines) {
    const event = JSON.parse(line.toString()) as RunEvent | { type: 'heartbeat' };
    yield 'seq' in event ? event : null;
  }
}
