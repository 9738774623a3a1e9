import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { AppProcess, freePort } from '../support/processes';
import { responseChecker } from '../support/openapi-responses';
import { appScript } from '../support/test-environment';
import { ChaosStack, timeUntil } from './support/chaos-stack';
import { onlyCompleted, settle, startConversation } from './support/conversations';
import { report } from './support/report';

/** Issue #17 item 8: health that tells the truth, and stays fast under load. */
describe('Health', () => {
  let stack: ChaosStack;
  let gateway: AppProcess;

  beforeAll(async () => {
    stack = await ChaosStack.start();
    gateway = await stack.startGateway();
  });

  afterAll(async () => {
    await stack?.dispose();
  });

  it('reports queues without a consumer apart from readiness, until a worker consumes them', async () => {
    const ready = await fetch(`${gateway.url}/health/ready`);
    const workers = await fetch(`${gateway.url}/health/workers`);
    expect(ready.status).toBe(200);
    expect(workers.status).toBe(503);
    expect(await workers.json()).toEqual({
      status: 'error',
      consumers: { 'agent-run': 0, 'source-sync': 0, 'webhook-delivery': 0, 'routine-firing': 0, erasure: 0 },
    });

    await stack.startWorker();
    await timeUntil(async () => (await fetch(`${gateway.url}/health/workers`)).ok, 10000);
    const consumed = (await (await fetch(`${gateway.url}/health/workers`)).json()) as {
      consumers: Record<string, number>;
    };
    expect(consumed.consumers['agent-run']).toBeGreaterThanOrEqual(1);
    expect(consumed.consumers['source-sync']).toBeGreaterThanOrEqual(1);
    expect(consumed.consumers.erasure).toBeGreaterThanOrEqual(1);
  });

  it('stops a worker whose health port is taken, with a message naming the setting', async () => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const child = spawn(process.execPath, [appScript('worker')], {
        env: { ...stack.env, WORKER_HEALTH_PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).not.toBe(0);
      expect(output).toContain(`WORKER_HEALTH_PORT ${port} is already in use`);
      expect(output).not.toContain('worker started');
    } finally {
      squatter.close();
    }
  });

  it('answers /health/ready within a second while 40 conversations run', async () => {
    const client = stack.client();
    // The client checks every answer against /openapi.json, which the gateway builds on its first request: a
    // one-time 0.4-1 s of its CPU (SwaggerModule's scan) that would otherwise land inside the burst measured here.
    await responseChecker(gateway.url!);
    const load = Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        startConversation(client, stack.agentId, `/sleep 20\n/say ${'word '.repeat(30)}${i}`),
      ),
    );
    const latencies: number[] = [];
    const probing = (async () => {
      for (let i = 0; i < 20; i++) {
        const started = Date.now();
        const response = await fetch(`${gateway.url}/health/ready`);
        latencies.push(Date.now() - started);
        expect(response.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const [replies] = await Promise.all([load, probing]);
    const counts = await settle(gateway.url!, stack.key, stack.env.DATABASE_URL!, replies, 90000);
    const slowest = Math.max(...latencies);
    report('health-under-load', {
      fault: 'none: 40 concurrent conversations of 31 words at 20 ms a word, /health/ready probed 20 times',
      load: '40 conversations',
      counts,
      timings: { slowestReadyMs: slowest, medianReadyMs: latencies.sort((a, b) => a - b)[10] },
    });
    expect(slowest).toBeLessThan(1000);
    expect(counts).toEqual(onlyCompleted(40));
  });
});
