import { StreamableFile } from '@nestjs/common';
import { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ReplyStream } from '@app/run-events';

/**
 * Bytes a response may hold that the client has not taken yet. Lines are pushed as they arrive and never
 * wait for the socket (waiting would pile them up in the reader instead); a client that falls this far
 * behind, or does not read at all, is cut off so it cannot grow the gateway's memory. It resumes with
 * `?after=<last seq it got>` and loses nothing.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/**
 * The HTTP body of a reply stream: one JSON line each, `application/jsonl`. Fastify pipes it into the
 * response and destroys it when the client goes away, which closes the reply stream and its subscription.
 * A stream the gateway itself ends early (it is shutting down) also ends its keep-alive connection, which
 * would otherwise hold the server's close open; the client reconnects, to another replica, with `after`.
 */
export function jsonlBody(
  lines: ReplyStream,
  response?: ServerResponse,
  maxUnsentBytes = MAX_UNSENT_BYTES,
): StreamableFile {
  const body = new Readable({
    read() {
      // Lines are pushed by the loop below as they come, not pulled.
    },
    destroy(error, callback) {
      lines.close();
      callback(error);
    },
  });
  // Lines that come together (a step's burst of deltas arrives as one Redis message) go out in one write.
  let unsent = '';
  let sendScheduled = false;
  const send = () => {
    sendScheduled = false;
    if (unsent === '' || body.destroyed) return;
    body.push(unsent);
    unsent = '';
    if (body.readableLength > maxUnsentBytes) body.destroy();
  };
  void (async () => {
    try {
      for await (const line of lines) {
        if (body.destroyed) break;
        unsent += `${line}\n`;
        if (!sendScheduled) {
          sendScheduled = true;
          setImmediate(send);
        }
      }
      send();
      if (body.destroyed) return;
      const socket = response?.socket;
      // (The response lets go of its socket once finished: keep hold of it now.)
      if (lines.interrupted && socket) response.once('finish', () => socket.end());
      body.push(null);
    } catch (error) {
      body.destroy(error as Error);
    }
  })();
  return new StreamableFile(body, { type: 'application/jsonl' });
}
