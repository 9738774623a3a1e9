/**
 * Whole conversations, as BENCHMARKS.md defines one: POST /chat with `/say` and 22 words, then
 * GET /chat/messages/{id}/stream read until message.completed and the response closes. One gateway and one
 * worker with the builtin model; 1, 8 and 32 concurrent clients. Records conversations/s, conversation and
 * first-delta latency, and POST /chat latency while the worker is busy.
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && node /tmp/dist-bench/bench/conversation.js
 *
 * Environment: BENCH_CONVERSATIONS (per client count, default 20 × clients, at least 100), BENCH_RUNS (3),
 * BENCH_CLIENT_COUNTS (default 1,8,32); settings of the apps (e.g. AGENT_RUN_CONCURRENCY) pass through.
 */
import { performance } from 'node:perf_hooks';
import { createBenchEnvironment, median, percentile } from './support';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CLIENT_COUNTS = (process.env.BENCH_CLIENT_COUNTS ?? '1,8,32').split(',').map(Number);
const WORDS =
  'the quick brown fox jumps over the lazy dog while seven clever ravens watch from an old oak tree near the quiet river bank';
const CONTENT = `/say ${WORDS.split(' ').slice(0, 22).join(' ')}`;

interface Conversation {
  postMs: number;
  firstDeltaMs: number;
  totalMs: number;
}

async function conversation(url: string, key: string, agentId: string): Promise<Conversation> {
  const started = performance.now();
  const posted = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': key },
    body: JSON.stringify({ message: { content: CONTENT }, options: { agent_id: agentId, user_id: 'bench' } }),
  });
  if (posted.status !== 200) throw new Error(`POST /chat: ${posted.status} ${await posted.text()}`);
  const thread = (await posted.json()) as { messages: { id: string }[] };
  const postMs = performance.now() - started;
  const stream = await fetch(`${url}/chat/messages/${thread.messages[1].id}/stream`, {
    headers: { 'x-service-token': key },
  });
  if (!stream.ok || !stream.body) throw new Error(`stream: ${stream.status}`);
  let firstDeltaMs = 0;
  let completed = false;
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of stream.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!firstDeltaMs && line.includes('"type":"text.delta"')) firstDeltaMs = performance.now() - started;
      if (line.includes('"type":"message.completed"')) completed = true;
    }
  }
  if (!completed) throw new Error('stream closed before message.completed');
  return { postMs, firstDeltaMs, totalMs: performance.now() - started };
}

async function round(clients: number, count: number, target: { url: string; key: string; agentId: string }) {
  const results: Conversation[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next++ < count) results.push(await conversation(target.url, target.key, target.agentId));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: results.length / seconds, results };
}

const ms = (value: number) => value.toFixed(1);

async function main(): Promise<void> {
  const passThrough = Object.fromEntries(
    ['AGENT_RUN_CONCURRENCY'].filter((name) => process.env[name]).map((name) => [name, process.env[name]]),
  );
  const environment = await createBenchEnvironment(passThrough);
  try {
    const { key } = await environment.admin(['keys:create', '--org', 'bench']);
    const { id: agentId } = await environment.admin(['agents:create', '--org', 'bench', '--name', 'bench']);
    const { url } = await environment.startGateway();
    await environment.startWorker();
    const target = { url, key, agentId };
    await round(8, 100, target); // warm up: JIT, connection pools, prepared plans

    const lines = [
      '| clients | conversations/s | conversation p50 / p99 ms | first delta p50 / p99 ms | POST /chat p50 / p99 ms |',
      '|---|---|---|---|---|',
    ];
    for (const clients of CLIENT_COUNTS) {
      const count = Number(process.env.BENCH_CONVERSATIONS ?? Math.max(100, 20 * clients));
      const runs = [];
      for (let index = 0; index < RUNS; index++) runs.push(await round(clients, count, target));
      const rates = runs.map((r) => r.perSecond);
      // Latencies of the median run by throughput: one run's figures, not a blend of several.
      const middle = runs[rates.indexOf(median(rates))].results;
      const of = (pick: (c: Conversation) => number) => middle.map(pick);
      lines.push(
        `| ${clients} | ${median(rates).toFixed(1)} (runs: ${rates.map((r) => r.toFixed(1)).join(', ')}) | ` +
          `${ms(median(of((c) => c.totalMs)))} / ${ms(
            percentile(
              of((c) => c.totalMs),
              99,
            ),
          )} | ` +
          `${ms(median(of((c) => c.firstDeltaMs)))} / ${ms(
            percentile(
              of((c) => c.firstDeltaMs),
              99,
            ),
          )} | ` +
          `${ms(median(of((c) => c.postMs)))} / ${ms(
            percentile(
              of((c) => c.postMs),
              99,
            ),
          )} |`,
      );
      process.stdout.write(`${lines[lines.length - 1]}\n`);
    }
    process.stdout.write(`\n${lines.join('\n')}\n`);
  } finally {
    await environment.dispose();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
