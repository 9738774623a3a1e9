import { StreamableFile } from '@nestjs/common';
import { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ReplyStream } from '@app/run-events';
import { StalledStreams } from './stalled-streams';

/**
 * Bytes of lines a response queues before it waits for the client to take them (and largest single write).
 * With the socket's own buffer and the line being written, that is all a stream holds: lines are pulled from
 * the reply stream only as the client reads, and the reply stream reads Redis only as it is pulled.
 */
const QUEUED_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');
/**
 * Lines at least this large go out as the Buffer the reader holds, shared by every stream of the reply; smaller
 * ones are copied into one write with their neighbours, which costs less than a write each.
 */
const SHARED_LINE_BYTES = 1024;

export interface JsonlBodyLimits {
  /** A client that takes no bytes for this long is cut. */
  stallTimeoutMs: number;
  /** The gateway-wide bound on what stalled streams hold. */
  stalled: StalledStreams;
}

/**
 * The HTTP body of a reply stream: one JSON line each, `application/jsonl`. Fastify pipes it into the
 * response and destroys it when the client goes away, which closes the reply stream and its subscription.
 * A client that stops reading is cut off after `stallTimeoutMs` (at once when the gateway's stalled streams
 * hold too much already); it resumes with `?after=<last seq it got>` and loses nothing. A stream the gateway
 * itself ends early (it is shutting down) also ends its keep-alive connection, which would otherwise hold the
 * server's close open; the client reconnects, to another replica, with `after`.
 */
export function jsonlBody(
  lines: ReplyStream,
  response: ServerResponse | undefined,
  limits: JsonlBodyLimits,
  /** Another line-based format of the same stream: the server-sent events of the AI SDK and the Responses API. */
  contentType = 'application/jsonl',
): StreamableFile {
  const iterator = lines[Symbol.asyncIterator]();
  let pulling = false;
  let wanted = false;
  let stall: { timer: NodeJS.Timeout; bytes: number } | null = null;

  const body = new Readable({
    highWaterMark: QUEUED_BYTES,
    read() {
      // The client took what was queued: it is reading.
      endStall();
      wanted = true;
      if (!pulling) void pull();
    },
    destroy(error, callback) {
      endStall();
      lines.close();
      void iterator.return?.(undefined);
      callback(error);
    },
  });

  const cut = () => {
    body.destroy();
    // Whatever the socket still holds for this client is dropped with it.
    response?.destroy();
  };

  function startStall(): void {
    if (stall || body.destroyed) return;
    const bytes = body.readableLength + (response?.writableLength ?? 0);
    if (!limits.stalled.admit(bytes, cut)) return cut();
    stall = { timer: setTimeout(cut, limits.stallTimeoutMs), bytes };
  }

  function endStall(): void {
    if (!stall) return;
    clearTimeout(stall.timer);
    limits.stalled.release(stall.bytes, cut);
    stall = null;
  }

  // The socket took what the response held: the client reads, so its stall window starts again, and runs on
  // while lines still wait for room (read() ends it once they move).
  response?.on('drain', () => {
    endStall();
    if (!wanted) startStall();
  });

  // Lines that come together (a step's burst of deltas arrives as one Redis message) go out in one write.
  async function pull(): Promise<void> {
    pulling = true;
    let unsent: Buffer[] = [];
    let unsentBytes = 0;
    let sendScheduled = false;
    const send = () => {
      sendScheduled = false;
      if (unsentBytes === 0 || body.destroyed) return;
      const chunk = unsent.length === 1 ? unsent[0] : Buffer.concat(unsent, unsentBytes);
      unsent = [];
      unsentBytes = 0;
      wanted = body.push(chunk);
      if (!wanted || response?.writableNeedDrain) startStall();
    };
    try {
      for (;;) {
        // Not wanted: the client has not taken what is queued; read() resumes pulling when it does.
        if (!wanted || body.destroyed) return;
        const { done, value } = await iterator.next();
        if (body.destroyed) return;
        if (done) break;
        if (value.length >= SHARED_LINE_BYTES) {
          // What came before, then the line itself, then its newline.
          send();
          body.push(value);
          wanted = body.push(NEWLINE);
          if (!wanted || response?.writableNeedDrain) startStall();
          continue;
        }
        unsent.push(value, NEWLINE);
        unsentBytes += value.length + 1;
        if (unsentBytes >= QUEUED_BYTES) send();
        else if (!sendScheduled) {
          sendScheduled = true;
          setImmediate(send);
        }
      }
      send();
      const socket = response?.socket;
      // (The response lets go of its socket once finished: keep hold of it now.) Closed, not just ended: a
      // client that is not reading would never answer the end with its own, and would hold the shutdown open.
      if (lines.interrupted && socket) response.once('finish', () => socket.destroySoon());
      body.push(null);
    } catch (error) {
      body.destroy(error as Error);
    } finally {
      pulling = false;
    }
  }

  return new StreamableFile(body, { type: contentType });
}
