import { Redis } from 'ioredis';
import { useDeployment } from '../support/deployment';
import { useFakeDrive } from '../support/fake-drive-fixture';
import { api } from '../support/http';
import { freePort } from '../support/processes';
import { queryDatabase } from '../support/test-environment';
import { untilShowing } from '../support/poll';

/**
 * Issue 36 item 1: periodic work outlives a Redis that loses its data while every process stays up. A routine
 * keeps firing and a source keeps syncing on its own: the workers' reconciliation puts their job schedulers back
 * from PostgreSQL within a sweep interval (here 1 s), and counts them in `job_schedulers_repaired_total`.
 * The Redis is shared with other test runs, so the "flush" deletes every key of this deployment's prefix: what
 * FLUSHALL does to it (test/chaos/redis-flush.chaos-spec.ts runs a real FLUSHALL on a Redis of its own).
 */
const USER = 'alice';
const SWEEP_INTERVAL_MS = 1000;

let metricsUrl: string;
let healthPort: number;
let client: ReturnType<typeof api>;
const drive = useFakeDrive('first file');

beforeAll(async () => {
  healthPort = await freePort();
  metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
});
const deployment = useDeployment({
  env: () => ({
    ...drive.env(),
    SOURCE_SYNC_INTERVAL_SECONDS: '1',
    ROUTINE_SECONDS_SCHEDULES: 'true',
    RUN_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
  }),
  workers: 1,
  workerEnv: () => ({ WORKER_HEALTH_PORT: String(healthPort) }),
  agent: true,
});

beforeAll(() => {
  client = deployment.client();
});

const until = untilShowing(() => deployment.worker.output, { timeoutMs: 15000, intervalMs: 200, tail: 2000 });

/**
 * Every key of this deployment gone at once, as after a FLUSHALL: one script, so no job that finishes meanwhile
 * can write a scheduler back between two SCAN pages (and the test would prove nothing). Other test files share
 * the Redis, so not a FLUSHALL itself.
 */
const DELETE_MATCHING = `local cursor, deleted = '0', 0
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do deleted = deleted + redis.call('DEL', key) end
until cursor == '0'
return deleted`;

async function loseRedisData(): Promise<void> {
  const redis = new Redis(deployment.environment.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    await redis.eval(DELETE_MATCHING, 0, `*${deployment.environment.redisPrefix}*`);
  } finally {
    redis.disconnect();
  }
}

async function repairedSchedulers(queue: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = new RegExp(`^job_schedulers_repaired_total\\{[^}]*queue="${queue}"[^}]*\\} (\\d+)$`, 'm');
  return Number(line.exec(text)?.[1] ?? 0);
}

const firedThreads = async (name: string) =>
  (
    await queryDatabase<{ count: number }>(
      deployment.environment.databaseUrl,
      `SELECT count(*)::int AS count FROM threads WHERE user_id = $1 AND name LIKE $2`,
      [USER, `${name} %`],
    )
  )[0].count;

it('keeps firing a routine after Redis lost its scheduler, with no process restarted', async () => {
  const routine = await client.post('/routines', {
    name: 'Pulse',
    agent_id: deployment.agentId,
    user_id: USER,
    schedule: '*/2 * * * * *',
    message: { content: '/say pulse' },
  });
  expect(routine.status).toBe(200);
  await until(
    () => firedThreads('Pulse'),
    (count) => count >= 2,
  );

  await loseRedisData();
  const atLoss = await firedThreads('Pulse');
  // Firings resume: two more slots fire, which the lost scheduler alone could never do.
  await until(
    () => firedThreads('Pulse'),
    (count) => count >= atLoss + 2,
  );
  expect(await repairedSchedulers('routine-firing')).toBeGreaterThanOrEqual(1);
  await client.put(`/routines/${routine.body.id}?user_id=${USER}`, { active: false });
});

it('keeps syncing a source periodically after Redis lost its scheduler, with no process restarted', async () => {
  const connection = await client.post(`/dc/connections?user_id=${USER}`, {
    name: 'Drive',
    kind: 'googledrive',
    credentials: { access_token: 'token' },
  });
  const source = await client.post(`/dc/sources?user_id=${USER}`, {
    connection_id: connection.body.id,
    store: 'googledrive',
    config: { folder_id: 'shared' },
    scope: 'organization',
  });
  expect(source.status).toBe(200);
  const get = async () => (await client.get(`/dc/sources/${source.body.pid}`)).body;
  await until(get, (s) => s.status === 'synced' && s.documents_synced === 1);

  await loseRedisData();
  // A sync under way at the loss is finished by the sweep of forgotten syncs; only a scheduler syncs again after.
  await until(get, (s) => s.status === 'synced');
  drive.addFile('shared', 'b.txt', 'text/plain', 'second file');
  // Syncing resumes. The reconciler usually sets the lost scheduler again (job_schedulers_repaired_total), but not
  // always: a BullMQ worker that takes a scheduler's job upserts the scheduler from the job's own options, so a sync
  // job taken around the loss can put it back first (a CI run saw the second sync with no repair counted).
  await until(get, (s) => s.status === 'synced' && s.documents_synced === 2);
});
