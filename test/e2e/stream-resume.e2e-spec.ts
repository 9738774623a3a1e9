import { createServer, connect, Server, Socket } from 'node:net';
import { ParleyClient, ReplyEvent, StreamInterruptedError } from '@app/client';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { AppProcess, freePort, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/**
 * Issue #17 items 4 (gateway half) and 5: a client reaches two gateways through a load balancer (a TCP proxy
 * whose target the test switches); the gateway serving a stream stops gracefully, ends its open streams, and
 * the client library resumes with `after` on the other one without the caller seeing anything but the lines,
 * each once, in order.
 */
let environment: TestEnvironment;
let gateways: AppProcess[] = [];
let worker: AppProcess;
let org: OrgFixture;
let agentId: string;

/** A TCP proxy to `target`; new connections go wherever `target` points at the time. */
class SwitchingProxy {
  target: number;
  connections = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(target: number) {
    this.target = target;
    this.server = createServer((client) => {
      this.connections += 1;
      const upstream = connect(this.target, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<string> {
    const port = await freePort();
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${port}`;
  }

  /** Breaks every open connection, as a network fault would. */
  cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  close(): Promise<void> {
    this.cutAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const portOf = (gateway: AppProcess) => Number(new URL(gateway.url!).port);

// Three processes to start on a shared 2-core machine: the setup gets its own budget.
beforeAll(async () => {
  environment = await createTestEnvironment();
  gateways = [await startGateway(environment.env)];
  gateways.push(await startGateway(environment.env));
  worker = await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' });
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org)).id;
}, 120000);

afterAll(async () => {
  await Promise.all([...gateways.map((gateway) => gateway.stop()), worker?.stop()]);
  await environment?.dispose();
});

const words = Array.from({ length: 30 }, (_, index) => `w${index}`);

async function startReply(baseUrl: string): Promise<{ client: ParleyClient; replyId: string }> {
  const client = new ParleyClient({ baseUrl, token: org.key });
  const thread = await client.startThread({
    message: { content: `/sleep 100\n/say ${words.join(' ')}` },
    options: { agent_id: agentId, user_id: 'u1' },
  });
  return { client, replyId: thread.messages[1].id };
}

describe('streamReply across a gateway that stops', () => {
  it('resumes on the other gateway with `after`: every line once, ending with message.completed', async () => {
    const [first, second] = gateways;
    const proxy = new SwitchingProxy(portOf(first));
    try {
      const { client, replyId } = await startReply(await proxy.listen());
      const events: ReplyEvent[] = [];
      let stopped: Promise<number | null> | null = null;
      for await (const event of client.streamReply(replyId, { resumeBackoffMs: 50 })) {
        events.push(event);
        if (event.type === 'text.delta' && event.delta.includes('w5 ') && !stopped) {
          // The balancer sends new connections to the other gateway; this one stops (SIGTERM).
          proxy.target = portOf(second);
          stopped = first.stop();
        }
      }
      expect(await stopped).toBe(0);
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
      const completed = events.at(-1)!;
      expect(completed.type).toBe('message.completed');
      const deltas = events.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []));
      expect(deltas.join('')).toBe(completed.type === 'message.completed' ? completed.message.content : null);
      expect(deltas.join('')).toBe(words.join(' '));
    } finally {
      await proxy.close();
    }
  });

  it('throws StreamInterruptedError, with the last seq it yielded, when no gateway can be reached', async () => {
    const alive = gateways.find((gateway) => gateway.running)!;
    const proxy = new SwitchingProxy(portOf(alive));
    try {
      const { client, replyId } = await startReply(await proxy.listen());
      const seqs: number[] = [];
      let thrown: unknown = null;
      try {
        for await (const event of client.streamReply(replyId, { resumeBackoffMs: 20, maxResumes: 3 })) {
          seqs.push(event.seq);
          if (event.type === 'text.delta' && event.delta.includes('w2 ')) {
            proxy.target = await freePort();
            proxy.cutAll();
          }
        }
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StreamInterruptedError);
      const interrupted = thrown as StreamInterruptedError;
      expect(interrupted.lastSeq).toBe(seqs.at(-1));
      expect(interrupted.attempts).toBe(3);
      expect(interrupted.messageId).toBe(replyId);
      // Resuming later, from where it stopped, completes the reply.
      const rest: ReplyEvent[] = [];
      const direct = new ParleyClient({ baseUrl: alive.url!, token: org.key });
      for await (const event of direct.streamReply(replyId, { after: interrupted.lastSeq })) rest.push(event);
      expect([...seqs, ...rest.map((event) => event.seq)]).toEqual(
        [...seqs, ...rest.map((event) => event.seq)].map((_, index) => index),
      );
      expect(rest.at(-1)!.type).toBe('message.completed');
    } finally {
      await proxy.close();
    }
  });
});
