import { StreamableFile } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';

/** An event of a protocol's stream: its SSE `event:` name is its `type`. Null is a heartbeat. */
type TypedEvent = { type: string } | null;

/**
 * A `text/event-stream` body: `event: <type>` and `data: <json>` per event, a comment line per heartbeat (which
 * keeps proxies from closing an idle stream). When the client goes away the body is destroyed, which ends the
 * event iteration and with it the reply stream underneath.
 */
export function serverSentEvents(events: AsyncIterable<TypedEvent>, reply: FastifyReply): StreamableFile {
  // Proxies must pass events on as they come, not collect the body.
  void reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  return new StreamableFile(Readable.from(frames(events), { objectMode: false }), {
    type: 'text/event-stream',
  });
}

async function* frames(events: AsyncIterable<TypedEvent>): AsyncGenerator<Buffer> {
  for await (const event of events) {
    yield Buffer.from(event ? `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n` : ': heartbeat\n\n');
  }
}
