import { Agent, get } from 'node:http';
import { connect, Socket } from 'node:net';
import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { startGateway } from '../support/processes';
import { startThread } from './replies.support';
import { sleep, stalledClient } from './stream.support';

/**
 * Issue 36 item 5: a gateway's graceful stop ends within moments whatever its stream clients are doing. Each
 * round stops a gateway that serves live reply streams to clients that read, to clients that read nothing (their
 * response is half written: the end of it, and the connection's end, wait in buffers they do not read), to
 * clients that resume on the same gateway the moment their stream is ended, and that holds idle keep-alive
 * connections. Every stop must exit 0 within 2 s (SHUTDOWN_TIMEOUT_MS is 10 s: a stop held open by a
 * connection exits 1 after it).
 */
const ROUNDS = 8;
const STOP_BOUND_MS = 2000;
const REPLIES = 3;

const deployment = useDeployment({
  gateways: 0,
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0' },
  agent: true,
});

/** A reply that stays live for about ten seconds, a word every 150 ms. */
async function startLongReply(gatewayUrl: string): Promise<string> {
  const words = Array.from({ length: 70 }, (_, index) => `w${index}`).join(' ');
  const thread = await startThread(
    api(gatewayUrl, deployment.org.key),
    deployment.agentId,
    'u',
    `/sleep 150\n/say ${words}`,
  );
  return thread.replyId;
}

/**
 * A client that reads its stream and, when the gateway ends it, opens it again at once with `after` on the same
 * address (a balancer that has not yet taken the gateway out), until the gateway no longer answers.
 */
function resumingReader(gatewayUrl: string, replyId: string, stopped: () => boolean): Promise<void> {
  return (async () => {
    let after = -1;
    while (!stopped()) {
      try {
        const response = await fetch(`${gatewayUrl}/chat/messages/${replyId}/stream?after=${after}`, {
          headers: { 'x-service-token': deployment.org.key },
        });
        if (!response.ok || !response.body) return;
        let buffered = '';
        for await (const chunk of response.body) {
          buffered += Buffer.from(chunk).toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) {
            const parsed = JSON.parse(line) as { seq?: number };
            if (parsed.seq !== undefined) after = parsed.seq;
          }
        }
      } catch {
        return;
      }
    }
  })();
}

/** A keep-alive connection that made one request, got its answer, and stays open doing nothing. */
function idleKeepAlive(gatewayUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(gatewayUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET /health/live HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
    });
    socket.on('error', () => undefined);
    socket.once('data', () => resolve(socket));
  });
}

describe('a gateway stopping with open streams', () => {
  it(`exits 0 within ${STOP_BOUND_MS} ms, ${ROUNDS} times out of ${ROUNDS}`, async () => {
    const stops: { code: number | null; ms: number }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const gateway = await startGateway(deployment.environment.env);
      const sockets: Socket[] = [];
      let stopped = false;
      try {
        const replies = await Promise.all(
          Array.from({ length: REPLIES }, () => startLongReply(gateway.url!)),
        );
        const readers = replies.flatMap((replyId) => [
          resumingReader(gateway.url!, replyId, () => stopped),
          resumingReader(gateway.url!, replyId, () => stopped),
        ]);
        for (const replyId of replies) {
          sockets.push(
            await stalledClient(gateway.url!, `/chat/messages/${replyId}/stream`, deployment.org.key),
          );
        }
        sockets.push(await idleKeepAlive(gateway.url!), await idleKeepAlive(gateway.url!));
        // The streams are flowing: the replies have started and written some lines.
        await sleep(800);

        const started = Date.now();
        const code = await gateway.stop(STOP_BOUND_MS * 10);
        stops.push({ code, ms: Date.now() - started });
        stopped = true;
        await Promise.all(readers);
      } finally {
        stopped = true;
        for (const socket of sockets) socket.destroy();
        await gateway.stop();
      }
    }
    expect(stops.filter((stop) => stop.code !== 0 || stop.ms >= STOP_BOUND_MS)).toEqual([]);
  }, 240000);
});

/**
 * A stream read to its end through a keep-alive agent, as an HTTP client library reads one: the agent keeps the
 * connection for its next request once the response has ended. Resolves with the lines' types, or with what the
 * stream held when the gateway ended it early.
 */
function streamThroughAgent(gatewayUrl: string, replyId: string, agent: Agent): Promise<string[]> {
  const { hostname, port } = new URL(gatewayUrl);
  return new Promise((resolve) => {
    const types: string[] = [];
    let buffered = '';
    get(
      {
        host: hostname,
        port,
        path: `/chat/messages/${replyId}/stream`,
        headers: { 'x-service-token': deployment.org.key },
        agent,
      },
      (response) => {
        response.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) if (line) types.push((JSON.parse(line) as { type: string }).type);
        });
        response.on('end', () => resolve(types));
        response.on('error', () => resolve(types));
      },
    ).on('error', () => resolve(types));
  });
}

describe('a gateway stopping while clients keep the connections of finished streams alive', () => {
  const STREAMS = 100;
  const LIVE = 10;

  it(`exits 0 within ${STOP_BOUND_MS} ms with ${STREAMS - LIVE} of ${STREAMS} streams finished`, async () => {
    const gateway = await startGateway(deployment.environment.env);
    const agent = new Agent({ keepAlive: true, maxSockets: STREAMS });
    try {
      const client = api(gateway.url!, deployment.org.key);
      const finishedIds: string[] = [];
      for (let index = 0; index < STREAMS - LIVE; index += 1) {
        const thread = await startThread(client, deployment.agentId, 'u', `/say short reply ${index}`);
        finishedIds.push(thread.replyId);
      }
      const liveIds = await Promise.all(Array.from({ length: LIVE }, () => startLongReply(gateway.url!)));
      const live = liveIds.map((replyId) => streamThroughAgent(gateway.url!, replyId, agent));
      const finished = await Promise.all(
        finishedIds.map((replyId) => streamThroughAgent(gateway.url!, replyId, agent)),
      );
      expect(finished.every((types) => types.at(-1) === 'message.completed')).toBe(true);
      // The client holds the finished streams' connections open, idle, for its next requests.
      await sleep(200);
      expect(Object.values(agent.freeSockets).flat().length).toBeGreaterThanOrEqual(STREAMS - LIVE);

      const started = Date.now();
      const code = await gateway.stop(STOP_BOUND_MS * 10);
      const stopMs = Date.now() - started;
      const liveTypes = await Promise.all(live);

      expect({ code, inTime: stopMs < STOP_BOUND_MS }).toEqual({ code: 0, inTime: true });
      // The live streams were ended by the stop (their clients resume elsewhere with `after`), not completed.
      expect(liveTypes.filter((types) => types.includes('message.completed'))).toEqual([]);
    } finally {
      agent.destroy();
      await gateway.stop();
    }
  }, 120000);
});
