/**
 * Issue 50's measure (CONTRACTS §24): what an agent's guardrails cost a conversation. Two parts:
 *
 * 1. CPU, in process: the guardrail work of one conversation of the paced workload's shape (BENCHMARKS.md: a
 *    100-word reply, streamed a word a delta) on a thread of 10 earlier messages, with 100 blocked terms: the
 *    input check of a user message holding an e-mail address, a phone number and a card number, the redaction of
 *    the history the model sees, and the output watch on every delta. Both PII settings (`redact`, `block`; both
 *    also scan the reply: redact rewrites it, block stops it). CPU ms per conversation over BENCH_CPU_CONVERSATIONS (default 2 000), beside the
 *    machine's calibration (../shared/bench-calibrate.mjs).
 * 2. First-delta latency, on real processes: a gateway and a worker, the builtin model, one agent without
 *    guardrails and one with `pii: "redact"` and 100 blocked terms (no moderation model: that is a model call of
 *    its own); BENCH_CONVERSATIONS (default 100) sequential conversations to each, alternating, each timed from
 *    `POST /chat` sent to its stream's first `text.delta` line, the stream then read to its end.
 *
 * Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/guardrails.js
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { GuardrailSettings, MessageEntity } from '@app/persistence';
import { guardedHistory, Guardrails, OutputWatch } from '../libs/agent/src/guardrails/guardrails';
import { ModelProvider } from '../libs/agent/src/models/model-provider';
import { benchNumbers, Cleanup, createBenchEnvironment, median, percentile, runBenchmark } from './support';

const { CPU_CONVERSATIONS, CONVERSATIONS } = benchNumbers({ CPU_CONVERSATIONS: 2000, CONVERSATIONS: 100 });
/** The machine's calibration, in the shared folder beside the clone (run from the repository's root). */
const CALIBRATION = join(process.cwd(), '..', 'shared', 'bench-calibrate.mjs');

const TERMS = Array.from({ length: 100 }, (_, index) => `forbidden phrase number ${index}`);
const WORDS = Array.from({ length: 100 }, (_, index) => `word${index}`);
const USER_MESSAGE =
  'Hello, I am writing about my order from last week. You can reach me at jane.doe@example.com or on ' +
  '+44 20 7946 0958, and the card I paid with is 4111 1111 1111 1111. Could you tell me when it ships?';
const HISTORY: MessageEntity[] = Array.from({ length: 11 }, (_, index) =>
  Object.assign(new MessageEntity(), {
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content:
      index === 10 ? USER_MESSAGE : `${index % 2 === 0 ? 'A question' : 'An answer'} ${WORDS.join(' ')}`,
  }),
);

const ms = (value: number) => value.toFixed(3);

async function calibration(): Promise<string> {
  if (!existsSync(CALIBRATION)) return `no ${CALIBRATION}`;
  const { stdout } = await promisify(execFile)(process.execPath, [CALIBRATION]);
  return stdout.trim();
}

/** One conversation's guardrail work, as the step loop does it, with the moderation model left out. */
async function conversation(guardrails: Guardrails, settings: GuardrailSettings): Promise<void> {
  const signal = new AbortController().signal;
  const input = await guardrails.checkInput(settings, USER_MESSAGE, signal);
  if (input.blocked && settings.pii !== 'block') throw new Error('the input was blocked');
  guardedHistory(HISTORY, settings);
  const watch = new OutputWatch(settings);
  for (const word of WORDS) {
    if ('blocked' in watch.push(`${word} `)) throw new Error('the output was blocked');
  }
  watch.end();
}

async function cpuPerConversation(settings: GuardrailSettings): Promise<number> {
  const guardrails = new Guardrails({} as ModelProvider);
  for (let index = 0; index < 200; index++) await conversation(guardrails, settings);
  const started = process.cpuUsage();
  for (let index = 0; index < CPU_CONVERSATIONS; index++) await conversation(guardrails, settings);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / CPU_CONVERSATIONS;
}

const cleanups: Cleanup[] = [];

runBenchmark(cleanups, async () => {
  console.log(`machine: ${await calibration()}`);
  for (const pii of ['redact', 'block'] as const) {
    const cpu = await cpuPerConversation({ pii, blockedTerms: TERMS, moderationModel: null });
    console.log(`guardrail CPU per conversation, pii ${pii}, 100 blocked terms: ${ms(cpu)} ms`);
  }
  console.log(`machine: ${await calibration()}`);

  const environment = await createBenchEnvironment();
  cleanups.push(() => environment.dispose());
  const gateway = await environment.startGateway();
  await environment.startWorker();
  const { key } = await environment.admin<{ key: string }>(['keys:create', '--org', 'bench']);
  const plain = await environment.admin<{ id: string }>([
    'agents:create',
    '--org',
    'bench',
    '--name',
    'plain',
  ]);
  const guarded = await environment.admin<{ id: string }>([
    'agents:create',
    '--org',
    'bench',
    '--name',
    'guarded',
    '--guardrails',
    JSON.stringify({ pii: 'redact', blocked_terms: TERMS }),
  ]);
  const say = `/say ${WORDS.join(' ')}`;
  const firstDelta = async (agentId: string): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${gateway.url}/chat`, {
      method: 'POST',
      headers: { 'x-service-token': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: { content: `${USER_MESSAGE}\n${say}` },
        options: { agent_id: agentId, user_id: 'bench-user' },
      }),
    });
    const replyId = ((await response.json()) as { messages: { id: string }[] }).messages[1].id;
    const stream = await fetch(`${gateway.url}/chat/messages/${replyId}/stream`, {
      headers: { 'x-service-token': key },
    });
    const decoder = new TextDecoder();
    let read = '';
    let first: number | null = null;
    for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
      read += decoder.decode(chunk, { stream: true });
      if (first === null && read.includes('"type":"text.delta"')) first = performance.now() - started;
    }
    if (!read.includes('"status":"success"'))
      throw new Error(`the reply did not succeed: ${read.slice(-300)}`);
    return first!;
  };
  // Warm-up: prepared statements, JIT, connections.
  for (let index = 0; index < 10; index++) await Promise.all([firstDelta(plain.id), firstDelta(guarded.id)]);
  const times = { plain: [] as number[], guarded: [] as number[] };
  for (let index = 0; index < CONVERSATIONS; index++) {
    times.plain.push(await firstDelta(plain.id));
    times.guarded.push(await firstDelta(guarded.id));
  }
  for (const [name, values] of Object.entries(times)) {
    console.log(
      `first delta, ${name}: median ${ms(median(values))} ms, p90 ${ms(percentile(values, 90))} ms ` +
        `(${values.length} conversations)`,
    );
  }
  console.log(
    `first delta added by the guardrails, median: ${ms(median(times.guarded) - median(times.plain))} ms`,
  );
  console.log(`machine: ${await calibration()}`);
});
