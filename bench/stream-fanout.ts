/**
 * Reply stream fan-out: one gateway process, BENCH_STREAMS open streams (default 1000) on as many replies
 * whose events are written by the worker's own RunEventWriter (XADD with the seq's id, EXPIRE, PUBLISH), at
 * BENCH_RATE events a second in all, for BENCH_SECONDS. Each event carries its publish time, so the delay
 * from PUBLISH to the line reaching the client is measured per line; the gateway's RSS and V8 heap are read
 * before and after the streams open. Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/stream-fanout.js
 *
 * (NODE_PATH only when the build is outside the checkout.)
 *
 * Defaults: 1000 streams, 5000 events a second, 10 seconds. Also
 * BENCH_GATEWAY_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the gateway, or
 * `--heapsnapshot-signal=SIGUSR2` with BENCH_HOLD_MS to hold the streams open while a snapshot is taken).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, get, IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { loadSettings } from '@app/config';
import { RunEventLog, RunEventWriter } from '@app/run-events';
import { BASE_DATABASE_URL, benchNumbers, REDIS_URL } from './support';
import { benchAppEnv, dropBenchStores, freePort, migrateBenchDatabase } from './support';
import { percentile, sleep } from './support';

const run = promisify(execFile);
const DIST = join(__dirname, '..');
const { STREAMS, RATE, SECONDS } = benchNumbers({ STREAMS: 1000, RATE: 5000, SECONDS: 10 });

/** User + system CPU time of a process, in ms (Linux clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The gateway's V8 heap in use, from its own /metrics (prom-client's default metrics). */
async function heapUsedKiB(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1] ?? NaN) / 1024;
}

const rssKiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

async function admin(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, string>> {
  const { stdout } = await run(process.execPath, [join(DIST, 'apps/admin/src/main.js'), ...args], { env });
  return JSON.parse(stdout) as Record<string, string>;
}

interface Stream {
  messageId: string;
  threadId: string;
  lines: number;
  ended: boolean;
  response?: IncomingMessage;
}

async function main(): Promise<void> {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const { databaseUrl, env } = benchAppEnv(name, {
    PORT: String(port),
    STORAGE_PORT: String(await freePort()),
    HOST: '127.0.0.1',
  });
  const redis = new Redis(REDIS_URL);
  const db = new Client({ connectionString: BASE_DATABASE_URL });
  await db.connect();
  let gateway: ChildProcess | undefined;
  try {
    await migrateBenchDatabase(env);
    const key = await admin(env, ['keys:create', '--org', 'bench']);
    const agent = await admin(env, ['agents:create', '--org', 'bench', '--name', 'bench']);

    // The replies to stream: one thread each with its pending assistant message, as POST /chat leaves them.
    const streams: Stream[] = Array.from({ length: STREAMS }, () => ({
      messageId: randomUUID(),
      threadId: randomUUID(),
      lines: 0,
      ended: false,
    }));
    const seed = new Client({ connectionString: databaseUrl });
    await seed.connect();
    await seed.query(
      `INSERT INTO threads (id, org_id, user_id, agent_id, name)
       SELECT unnest($1::uuid[]), $2, 'bench-user', $3, 'bench'`,
      [streams.map((s) => s.threadId), key.org_id, agent.id],
    );
    await seed.query(
      `INSERT INTO messages (id, thread_id, org_id, position, role, status, live, agent_id)
       SELECT unnest($1::uuid[]), unnest($2::uuid[]), $3, 0, 'assistant', 'pending', true, $4`,
      [streams.map((s) => s.messageId), streams.map((s) => s.threadId), key.org_id, agent.id],
    );
    await seed.end();

    const nodeArgs = process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    gateway = spawn(process.execPath, [...nodeArgs, join(DIST, 'apps/gateway/src/main.js')], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    for (let ready = false; !ready;) {
      ready = await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await sleep(100);
    }
    await sleep(500);
    const rssBefore = rssKiB(gateway.pid!);
    const heapBefore = await heapUsedKiB(base);

    const delays: number[] = [];
    /** From the bench handing an event to the writer to Redis acknowledging it: the part not the gateway's. */
    const writeDelays: number[] = [];
    const agentPool = new Agent({ keepAlive: true, maxSockets: Infinity });
    await Promise.all(
      streams.map(
        (stream) =>
          new Promise<void>((resolve, reject) => {
            const request = get(
              `${base}/chat/messages/${stream.messageId}/stream`,
              { agent: agentPool, headers: { 'x-service-token': key.key } },
              (response) => {
                if (response.statusCode !== 200) return reject(new Error(`status ${response.statusCode}`));
                stream.response = response;
                let buffer = '';
                response.setEncoding('utf8');
                response.on('data', (chunk: string) => {
                  buffer += chunk;
                  let newline: number;
                  while ((newline = buffer.indexOf('\n')) >= 0) {
                    const line = JSON.parse(buffer.slice(0, newline)) as { type: string; delta?: string };
                    buffer = buffer.slice(newline + 1);
                    if (line.type === 'text.delta') delays.push(performance.now() - Number(line.delta));
                    if (line.type !== 'heartbeat') stream.lines += 1;
                  }
                });
                response.on('end', () => (stream.ended = true));
                resolve();
              },
            );
            request.on('error', reject);
          }),
      ),
    );
    // Every stream is subscribed (through the gateway's one subscriber connection) before anything is sent.
    for (;;) {
      const channels = (await redis.pubsub('CHANNELS', `${name}:run-events:*`)) as string[];
      if (channels.length === STREAMS) break;
      await sleep(100);
    }
    await sleep(1000);
    const rssOpen = rssKiB(gateway.pid!);
    const heapOpen = await heapUsedKiB(base);
    if (process.env.BENCH_HOLD_MS) {
      process.stderr.write(`holding: gateway pid ${gateway.pid}\n`);
      await sleep(Number(process.env.BENCH_HOLD_MS));
    }
    // The gateway's one subscriber connection holds every channel (other processes may share this Redis).
    const subscriberConnections = ((await redis.client('LIST')) as string)
      .split('\n')
      .filter((line) => line.includes('name=stream-subscriber') && line.includes(` sub=${STREAMS} `)).length;

    // Events at RATE a second in all, spread evenly, round-robin over the replies, written by the worker's
    // own writer (XADD with the seq's id, EXPIRE and PUBLISH in one script call).
    const writer = new RunEventWriter(loadSettings({ REDIS_PREFIX: name, REDIS_URL }), redis);
    const logs = new Map<string, RunEventLog>(
      await Promise.all(
        streams.map(
          async (s) =>
            [s.messageId, (await writer.claim(s.messageId, () => Promise.resolve(true))).log] as const,
        ),
      ),
    );
    // Appends are pipelined, as a run sends them; an event counts as written once its log is flushed.
    const append = (messageId: string, event: Parameters<RunEventLog['append']>[0]) => {
      const log = logs.get(messageId)!;
      log.append(event);
      return log.flush();
    };
    const total = RATE * SECONDS;
    const gatewayCpuBefore = cpuMs(gateway.pid!);
    const benchCpuBefore = process.cpuUsage();
    const started = performance.now();
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < total; i += 1) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const stream = streams[i % STREAMS];
      const sentAt = performance.now();
      writes.push(
        append(stream.messageId, { type: 'text.delta', delta: String(sentAt) }).then(() =>
          writeDelays.push(performance.now() - sentAt),
        ),
      );
    }
    await Promise.all(writes);
    const elapsed = (performance.now() - started) / 1000;
    const gatewayCpu = (cpuMs(gateway.pid!) - gatewayCpuBefore) / 10 / elapsed;
    const benchCpuUsed = process.cpuUsage(benchCpuBefore);
    const benchCpu = (benchCpuUsed.user + benchCpuUsed.system) / 10000 / elapsed;
    await Promise.all(
      streams.map((s) => append(s.messageId, { type: 'message.completed', message: { id: s.messageId } })),
    );
    const deadline = Date.now() + 30000;
    while (streams.some((s) => !s.ended) && Date.now() < deadline) await sleep(100);
    await sleep(200);
    const channelsLeft = ((await redis.pubsub('CHANNELS', `${name}:run-events:*`)) as string[]).length;

    delays.sort((a, b) => a - b);
    writeDelays.sort((a, b) => a - b);
    const expectedLines = streams.reduce((sum, s) => sum + logs.get(s.messageId)!.nextSeq, 0);
    const receivedLines = streams.reduce((sum, s) => sum + s.lines, 0);
    const result = {
      streams: STREAMS,
      events_per_second_target: RATE,
      events_per_second_sent: Math.round(total / elapsed),
      seconds: SECONDS,
      lines_expected: expectedLines,
      lines_received: receivedLines,
      streams_ended: streams.filter((s) => s.ended).length,
      delay_ms: {
        p50: +percentile(delays, 50).toFixed(2),
        p90: +percentile(delays, 90).toFixed(2),
        p99: +percentile(delays, 99).toFixed(2),
        max: +delays[delays.length - 1].toFixed(2),
      },
      write_acknowledged_ms: {
        p50: +percentile(writeDelays, 50).toFixed(2),
        p99: +percentile(writeDelays, 99).toFixed(2),
      },
      gateway_rss_mib: { before: +(rssBefore / 1024).toFixed(1), open: +(rssOpen / 1024).toFixed(1) },
      rss_per_open_stream_kib: +((rssOpen - rssBefore) / STREAMS).toFixed(1),
      heap_used_per_open_stream_kib: +((heapOpen - heapBefore) / STREAMS).toFixed(1),
      cpu_percent_while_sending: { gateway: Math.round(gatewayCpu), bench: Math.round(benchCpu) },
      subscriber_connections_holding_all_channels: subscriberConnections,
      channels_left_after_end: channelsLeft,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    agentPool.destroy();
  } finally {
    gateway?.kill('SIGTERM');
    await sleep(500);
    redis.disconnect();
    await db.end();
    await dropBenchStores(name);
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
