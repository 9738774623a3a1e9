import Fastify, { FastifyInstance } from 'fastify';
import { Agent, get, IncomingMessage } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { drainConnectionsOnClose } from './drain-on-close';

/** A response streamed over `ms`: still being written when the close begins, finished after it. */
function slowBody(ms: number): PassThrough {
  const body = new PassThrough();
  body.write('first\n');
  setTimeout(() => body.end('last\n'), ms);
  return body;
}

describe('drainConnectionsOnClose', () => {
  let fastify: FastifyInstance;
  let agent: Agent;
  /** Settles once the server is answering /slow: the close must begin while that response is being written. */
  let slowAnswering: Promise<void>;

  beforeEach(async () => {
    fastify = Fastify();
    drainConnectionsOnClose(fastify);
    let answering: () => void;
    slowAnswering = new Promise((resolve) => (answering = resolve));
    fastify.get('/slow', (_request, reply) => {
      answering();
      return reply.send(slowBody(300));
    });
    fastify.get('/quick', async () => 'ok');
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    agent = new Agent({ keepAlive: true });
  });

  afterEach(() => agent.destroy());

  const port = () => (fastify.server.address() as AddressInfo).port;

  /** A GET through the keep-alive agent: resolves with the response once its body has arrived. */
  function fetchThroughAgent(
    path: string,
  ): Promise<{ response: IncomingMessage; socket: Socket; body: string }> {
    return new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port: port(), path, agent }, (response) => {
        // Held now: the response lets go of its socket once read.
        const socket = response.socket;
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ response, socket, body }));
      }).on('error', reject);
    });
  }

  it('ends a keep-alive connection whose response finishes after the close began, so the close completes', async () => {
    const slow = fetchThroughAgent('/slow');
    await slowAnswering;
    const closeStarted = Date.now();
    const closed = fastify.close();

    const { socket, body } = await slow;
    await closed;
    // Without the hook the connection stays in the agent, idle, and the close waits out the keep-alive timeout.
    expect(Date.now() - closeStarted).toBeLessThan(2000);
    expect(body).toBe('first\nlast\n');
    // The client's agent sees its connection end too (instead of keeping it for the next request).
    if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(0);
  });

  it('keeps connections alive while the server is not closing', async () => {
    const first = await fetchThroughAgent('/quick');
    const second = await fetchThroughAgent('/quick');
    expect(first.response.headers.connection).toBe('keep-alive');
    expect(second.socket).toBe(first.socket);
    await fastify.close();
  });
});
