import { randomUUID } from 'node:crypto';
import { connect, Socket } from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { encodeEvent, RunEvent, runEventKeys, SharedSubscriber } from '@app/run-events';
import { jsonlBody } from '../../../apps/gateway/src/reply-stream/jsonl-body';
import { StalledStreams } from '../../../apps/gateway/src/reply-stream/stalled-streams';
import { RunEventRedis } from '../run-events/run-event-redis';

const runEvents = new RunEventRedis('jsonl');
const { prefix } = runEvents;
const STALL_TIMEOUT_MS = 500;
const stalled = new StalledStreams(64 * 1024 * 1024);

let subscriber: SharedSubscriber;
let server: FastifyInstance;
let port: number;

/** The gateway's relay in a bare Fastify: the same `reply.send(stream)` Nest's adapter makes. */
beforeAll(async () => {
  const opened = runEvents.open();
  subscriber = opened.subscriber;
  const { reader } = opened;
  server = Fastify();
  server.get<{ Params: { id: string } }>('/stream/:id', (request, reply) => {
    const lines = reader.follow(request.params.id, {
      after: -1,
      heartbeatMs: 5000,
      storedLines: () => Promise.resolve(null),
    });
    return reply
      .type('application/jsonl')
      .send(jsonlBody(lines, reply.raw, { stallTimeoutMs: STALL_TIMEOUT_MS, stalled }).getStream());
  });
  await server.listen({ port: 0, host: '127.0.0.1' });
  port = (server.server.address() as { port: number }).port;
});

afterAll(async () => {
  await server.close();
  await runEvents.close();
});

const write = (messageId: string, event: RunEvent) => runEvents.write(messageId, event);
const numsub = (messageId: string) => runEvents.numsub(messageId);

/** A raw HTTP client that sends the request and then never reads the response. */
function stalledClient(path: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => undefined);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}

describe('jsonlBody', () => {
  it('streams application/jsonl, one line a seq, and ends after message.completed', async () => {
    const id = randomUUID();
    const events: RunEvent[] = [
      { seq: 0, type: 'message.started', message_id: id, thread_id: 't' },
      { seq: 1, type: 'text.delta', delta: 'Hi' },
      { seq: 2, type: 'message.completed', message: { id } },
    ];
    for (const event of events) await write(id, event);
    const response = await fetch(`http://127.0.0.1:${port}/stream/${id}`);
    expect(response.headers.get('content-type')).toBe('application/jsonl');
    const body = await response.text();
    expect(body).toBe(events.map((event) => `${encodeEvent(event)}\n`).join(''));
  });

  it('cuts off a client that does not read, keeping what it buffers bounded, and frees its subscription', async () => {
    const id = randomUUID();
    await write(id, { seq: 0, type: 'message.started', message_id: id, thread_id: 't' });
    const socket = await stalledClient(`/stream/${id}`);
    await until(async () => (await numsub(id)) === 1, 2000);

    // A fast reader of the same reply, to show that only the slow one is cut.
    const fast = fetch(`http://127.0.0.1:${port}/stream/${id}`).then((response) => response.text());

    const big = 'x'.repeat(64 * 1024);
    const count = 400;
    for (let seq = 1; seq <= count; seq += 1) await write(id, { seq, type: 'text.delta', delta: big });
    // The stalled client's stream is cut once it has taken nothing for the stall timeout: one reader left.
    await until(
      async () =>
        (await numsub(id)) === 1 && subscriber.listenerCount(runEventKeys(prefix, id).channel) === 1,
      10000,
    );
    expect(socket.destroyed).toBe(false);

    await write(id, { seq: count + 1, type: 'message.completed', message: { id } });
    const lines = (await fast).trim().split('\n');
    expect(lines).toHaveLength(count + 2);
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ type: 'message.completed' });
    await until(async () => (await numsub(id)) === 0, 2000);
    expect(stalled.bytes).toBe(0);

    // The server closed the slow client's connection instead of holding its data.
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
  });
});
