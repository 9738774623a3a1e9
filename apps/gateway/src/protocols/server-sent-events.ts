import { StreamableFile } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { jsonlBody, JsonlBodyLimits } from '../reply-stream/jsonl-body';
import { EventStream, mappedStream } from './reply-run-events';

/** How a protocol writes its events as frames, each but its closing blank line (the body ends each with a newline). */
type Framing<T> = (events: EventStream<T>) => AsyncGenerator<Buffer>;

/**
 * A `text/event-stream` body of `events` in a protocol's `framing`, a comment per heartbeat (which keeps proxies
 * from closing an idle stream). Written as the JSONL reply stream is, with its bounds: pulled only as the client
 * reads, a client that takes nothing for STREAM_STALL_TIMEOUT_MS cut (it resumes where it was), and the reply
 * stream underneath closed when the client goes away.
 */
export function serverSentEvents<T>(
  events: EventStream<T>,
  framing: Framing<T>,
  reply: FastifyReply,
  limits: JsonlBodyLimits,
): StreamableFile {
  // Proxies must pass events on as they come, not collect the body.
  void reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  return jsonlBody(
    mappedStream(events, () => framing(events)),
    reply.raw,
    limits,
    'text/event-stream',
  );
}

/** An event of a protocol's stream: its SSE `event:` name is its `type`. Null is a heartbeat. */
type TypedEvent = { type: string } | null;

/** `event: <type>` and `data: <json>` per event (the Responses API, CONTRACTS §18). */
export async function* typedFrames(events: EventStream<TypedEvent>): AsyncGenerator<Buffer> {
  for await (const event of events) {
    yield Buffer.from(event ? `event: ${event.type}\ndata: ${JSON.stringify(event)}\n` : ': heartbeat\n');
  }
}

/** The events one reply-stream line became, all sent with `id: <the line's seq>`. Null is a heartbeat. */
export type SequencedEvents = { seq: number; events: readonly unknown[] } | null;

/**
 * Only `id: <seq>` and `data: <json>` per event (A2A and AG-UI, CONTRACTS §22). The events of one line go out as
 * one write, so a client cut off mid-stream holds all of a line's events or none, and resumes after the last id it
 * saw.
 */
export async function* sequencedFrames(events: EventStream<SequencedEvents>): AsyncGenerator<Buffer> {
  for await (const batch of events) {
    if (!batch) {
      yield Buffer.from(': heartbeat\n');
      continue;
    }
    const frames = batch.events.map((event) => `id: ${batch.seq}\ndata: ${JSON.stringify(event)}\n`);
    // The body ends each item with a newline: the last frame's blank line.
    yield Buffer.from(frames.join('\n'));
  }
}
