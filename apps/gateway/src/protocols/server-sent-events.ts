import { StreamableFile } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { jsonlBody, JsonlBodyLimits } from '../stream/jsonl-body';
import { EventStream, mappedStream } from './reply-run-events';

/** An event of a protocol's stream: its SSE `event:` name is its `type`. Null is a heartbeat. */
type TypedEvent = { type: string } | null;

/**
 * A `text/event-stream` body: `event: <type>` and `data: <json>` per event, a comment per heartbeat (which keeps
 * proxies from closing an idle stream). Written as the JSONL reply stream is, with its bounds: pulled only as the
 * client reads, a client that takes nothing for STREAM_STALL_TIMEOUT_MS cut (it resumes where it was), and the
 * reply stream underneath closed when the client goes away.
 */
export function serverSentEvents(
  events: EventStream<TypedEvent>,
  reply: FastifyReply,
  limits: JsonlBodyLimits,
): StreamableFile {
  // Proxies must pass events on as they come, not collect the body.
  void reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  return jsonlBody(
    mappedStream(events, () => frames(events)),
    reply.raw,
    limits,
    'text/event-stream',
  );
}

/** Each event's frame but its closing blank line: the body writes a newline after each. */
async function* frames(events: EventStream<TypedEvent>): AsyncGenerator<Buffer> {
  for await (const event of events) {
    yield Buffer.from(event ? `event: ${event.type}\ndata: ${JSON.stringify(event)}\n` : ': heartbeat\n');
  }
}
