import { FastifyInstance } from 'fastify';

/**
 * While the server closes, responses to the requests still in flight carry `connection: close`, so their
 * keep-alive connections end with them instead of holding the shutdown open until the grace period runs out.
 * (Connections idle at that moment are closed by the server itself; new requests get 503.)
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
}
