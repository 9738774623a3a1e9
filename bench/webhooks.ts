/**
 * Webhooks (CONTRACTS §14): what one registered webhook adds to a conversation, and how fast deliveries go out.
 * One gateway and one worker with the builtin model; conversations as BENCHMARKS.md defines them (POST /chat with
 * `/say` and 22 words, the stream read to message.completed) by 8 concurrent clients, first with no webhook, then
 * with one webhook on `message.completed` whose receiver is a local HTTP server answering 204. Records
 * conversations/s both ways, the delay from a reply's end (the payload timestamp) to its receipt, and the delivery
 * throughput of a burst (every delivery of the run received, per second of the burst).
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/webhooks.js
 *
 * Environment: BENCH_CONVERSATIONS (per round, default 400), BENCH_CLIENTS (8), BENCH_RUNS (3).
 */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { benchNumbers, createBenchEnvironment, median, percentile, sleep } from './support';

const { RUNS, CLIENTS, CONVERSATIONS } = benchNumbers({ RUNS: 3, CLIENTS: 8, CONVERSATIONS: 400 });
const WORDS =
  'the quick brown fox jumps over the lazy dog while seven clever ravens watch from an old oak tree near the quiet';
const CONTENT = `/say ${WORDS}`;

interface Target {
  url: string;
  key: string;
  agentId: string;
}

async function conversation(target: Target): Promise<void> {
  const posted = await fetch(`${target.url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': target.key },
    body: JSON.stringify({
      message: { content: CONTENT },
      options: { agent_id: target.agentId, user_id: 'bench' },
    }),
  });
  if (posted.status !== 200) throw new Error(`POST /chat: ${posted.status} ${await posted.text()}`);
  const thread = (await posted.json()) as { messages: { id: string }[] };
  const stream = await fetch(`${target.url}/chat/messages/${thread.messages[1].id}/stream`, {
    headers: { 'x-service-token': target.key },
  });
  const text = await stream.text();
  if (!text.includes('"type":"message.completed"')) throw new Error('stream closed before message.completed');
}

/** Conversations/s of one round of `CONVERSATIONS` by `CLIENTS` clients. */
async function round(target: Target): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < CONVERSATIONS) {
        next += 1;
        await conversation(target);
      }
    }),
  );
  return CONVERSATIONS / ((performance.now() - started) / 1000);
}

/** A local receiver: counts deliveries and the delay from each event's timestamp to its receipt. */
function receiver() {
  const delays: number[] = [];
  const times: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const now = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      delays.push(now - new Date(body.timestamp).getTime());
      times.push(now);
      response.statusCode = 204;
      response.end();
    });
  });
  return { server, delays, times };
}

async function main(): Promise<void> {
  const environment = await createBenchEnvironment({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const hooks = receiver();
  await new Promise<void>((resolve) => hooks.server.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hooks.server.address() as AddressInfo).port}/hook`;
  try {
    const { url } = await environment.startGateway();
    await environment.startWorker();
    const org = `bench-${Date.now()}`;
    const { key } = await environment.admin<{ key: string }>(['keys:create', '--org', org]);
    const { id: agentId } = await environment.admin<{ id: string }>([
      'agents:create',
      '--org',
      org,
      '--name',
      'b',
    ]);
    const target = { url, key, agentId };
    const headers = { 'content-type': 'application/json', 'x-service-token': key };
    await round({ ...target }); // warm-up

    const without: number[] = [];
    const withHook: number[] = [];
    const throughput: number[] = [];
    const delayRuns: { p50: number; p99: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      without.push(await round(target));

      const created = await fetch(`${url}/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: hookUrl, events: ['message.completed'] }),
      });
      const webhook = (await created.json()) as { id: string };
      hooks.delays.length = 0;
      hooks.times.length = 0;
      const burstStart = Date.now();
      withHook.push(await round(target));
      const deadline = Date.now() + 120_000;
      while (hooks.times.length < CONVERSATIONS && Date.now() < deadline) await sleep(20);
      if (hooks.times.length < CONVERSATIONS)
        throw new Error(`only ${hooks.times.length} deliveries arrived`);
      throughput.push(CONVERSATIONS / ((Math.max(...hooks.times) - burstStart) / 1000));
      delayRuns.push({ p50: median(hooks.delays), p99: percentile(hooks.delays, 99) });
      await fetch(`${url}/webhooks/${webhook.id}`, { method: 'DELETE', headers });
    }

    const fmt = (values: number[]) => values.map((value) => value.toFixed(1)).join(', ');
    const overhead = ((1 / median(withHook) - 1 / median(without)) * 1000 * CLIENTS).toFixed(2);
    process.stdout.write(
      [
        `clients ${CLIENTS}, conversations per round ${CONVERSATIONS}, runs ${RUNS}`,
        `conversations/s without webhook: median ${median(without).toFixed(1)} (runs: ${fmt(without)})`,
        `conversations/s with one webhook: median ${median(withHook).toFixed(1)} (runs: ${fmt(withHook)})`,
        `added wall time per conversation per client: ${overhead} ms`,
        `deliveries/s over the burst: median ${median(throughput).toFixed(1)} (runs: ${fmt(throughput)})`,
        `end of reply -> receipt ms, p50 / p99 per run: ${delayRuns.map((d) => `${d.p50} / ${d.p99}`).join('; ')}`,
        '',
      ].join('\n'),
    );
  } finally {
    hooks.server.close();
    await environment.dispose();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
