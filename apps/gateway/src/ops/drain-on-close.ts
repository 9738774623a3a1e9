import { FastifyInstance } from 'fastify';

/**
 * While the server closes, no keep-alive connection outlives its last response:
 * - responses that start after the close began carry `connection: close`;
 * - a response that started before and finishes after (a stream the shutdown ended, a request in flight) has its
 *   connection ended once it is sent. Node closes only the connections idle at the moment of the close; one that
 *   goes idle later would stay open in the client's keep-alive agent for the keep-alive timeout (72 s), past the
 *   shutdown deadline, and the process would exit 1.
 * (Connections idle when the close begins are closed by the server itself; new requests get 503.)
 */
export function drainConnectionsOnClose(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  fastify.addHook('onResponse', async (request) => {
    // After the response is flushed (onResponse follows its `finish`): ending the socket cuts nothing of it.
    if (closing) request.raw.socket?.destroySoon();
  });
}
