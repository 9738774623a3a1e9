import { Redis } from 'ioredis';
import { firingThreadId } from '@app/routines';
import { admin, createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { untilShowing } from '../support/poll';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/**
 * Routines on real processes (CONTRACTS §13): CRUD and validation, a firing by hand, a schedule firing once per
 * slot with two workers, a missed slot caught up once, schedulers re-registered after Redis lost them, and a
 * routine whose agent is archived stopping with its reason. Schedules of seconds use the documented test hook
 * ROUTINE_SECONDS_SCHEDULES (a leading seconds field); the API itself takes 5-field schedules.
 */
const USER = 'alice';
const env = { ROUTINE_SECONDS_SCHEDULES: 'true' };
const workerEnv = { ...env, WORKER_HEALTH_PORT: '0' };

let environment: TestEnvironment;
let gateway: AppProcess;
let workers: AppProcess[] = [];
let org: OrgFixture;
let other: OrgFixture;
let agentId: string;
let client: ReturnType<typeof api>;

beforeAll(async () => {
  environment = await createTestEnvironment();
  gateway = await startGateway(environment.env, env);
  workers = [await startWorker(environment.env, workerEnv), await startWorker(environment.env, workerEnv)];
  [org, other] = await Promise.all([createOrg(environment.env), createOrg(environment.env)]);
  agentId = (await createAgent(environment.env, org.org)).id;
  client = api(gateway.url!, org.key);
}, 120000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), ...workers.map((worker) => worker.stop())]);
  await environment?.dispose();
});

type Routine = Record<string, any>;

async function create(body: Record<string, unknown> = {}): Promise<Routine> {
  const response = await client.post('/routines', {
    name: 'Morning digest',
    agent_id: agentId,
    user_id: USER,
    schedule: '0 9 * * 1-5',
    message: { content: '/say good morning' },
    ...body,
  });
  expect(response.status).toBe(200);
  return response.body;
}

/** Polls until a value shows; failing, with the tail of the worker's log. */
const until = untilShowing(() => workers.at(-1)?.output, { timeoutMs: 30000, intervalMs: 200, tail: 3000 });

/** The threads a routine named `name` stored, oldest first (a fired thread's name is the routine's and a date). */
const firedThreads = (name: string) =>
  queryDatabase<{ id: string; name: string; inception: string; created_at: Date }>(
    environment.databaseUrl,
    `SELECT id, name, inception, created_at FROM threads WHERE user_id = $1 AND name LIKE $2 ORDER BY created_at`,
    [USER, `${name} %`],
  );

describe('routines', () => {
  it('creates a routine with every field of the contract, and keeps it to its owner and organization', async () => {
    const routine = await create({ timezone: 'Europe/Paris', options: { max_steps: 3 } });
    expect(Object.keys(routine).sort()).toEqual(
      [
        'active',
        'agent_id',
        'created_at',
        'id',
        'inactive_reason',
        'last_run_at',
        'last_thread_id',
        'message',
        'name',
        'next_run_at',
        'options',
        'schedule',
        'timezone',
        'updated_at',
        'user_id',
      ].sort(),
    );
    expect(routine).toMatchObject({
      name: 'Morning digest',
      agent_id: agentId,
      user_id: USER,
      schedule: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      message: { content: '/say good morning' },
      options: { max_steps: 3 },
      active: true,
      inactive_reason: null,
      last_run_at: null,
      last_thread_id: null,
    });
    // 09:00 in Paris on a weekday, in the future.
    const next = new Date(routine.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Paris',
        hour: '2-digit',
        minute: '2-digit',
      }).format(next),
    ).toBe('09:00');

    expect((await client.get(`/routines/${routine.id}?user_id=${USER}`)).body).toEqual(routine);
    expect((await client.get(`/routines/${routine.id}?user_id=bob`)).status).toBe(404);
    expect((await api(gateway.url!, other.key).get(`/routines/${routine.id}?user_id=${USER}`)).status).toBe(
      404,
    );
    const newer = await create({ name: 'Evening digest' });
    const listed = (await client.get(`/routines?user_id=${USER}`)).body as Routine[];
    expect(listed.map((r) => r.id).slice(0, 2)).toEqual([newer.id, routine.id]);
    expect((await client.get('/routines?user_id=bob')).body).toEqual([]);
  });

  it('answers 422 in the Pydantic shape for a bad schedule, time zone or missing owner, 404 for an unknown agent', async () => {
    const bad = await client.post('/routines', {
      name: 'x',
      agent_id: agentId,
      user_id: USER,
      schedule: '61 * * * *',
      timezone: 'Mars/Olympus',
      message: { content: 'hi' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'schedule'], type: 'value_error', input: '61 * * * *' }),
      expect.objectContaining({ loc: ['body', 'timezone'], type: 'value_error', input: 'Mars/Olympus' }),
    ]);
    expect(bad.body.detail[0].msg).toMatch(/^Value error, invalid cron expression/);
    const fourFields = await client.post('/routines', {
      name: 'x',
      agent_id: agentId,
      user_id: USER,
      schedule: '* * * *',
      message: { content: 'hi' },
    });
    expect(fourFields.body.detail[0]).toMatchObject({
      loc: ['body', 'schedule'],
      msg: 'Value error, a schedule is a cron expression of 5 fields, this one has 4',
    });
    const missing = await client.get('/routines');
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'missing' });
    const unknownAgent = await client.post('/routines', {
      name: 'x',
      agent_id: '0190a0b0-0000-7000-8000-000000000000',
      user_id: USER,
      schedule: '0 9 * * *',
      message: { content: 'hi' },
    });
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.body).toEqual({ detail: 'Agent not found' });
    const count = await queryDatabase<{ n: number }>(
      environment.databaseUrl,
      'SELECT count(*)::int AS n FROM routines WHERE name = $1',
      ['x'],
    );
    expect(count[0].n).toBe(0);
  });

  it('updates in part, pauses, and deletes (204), after which it is gone', async () => {
    const routine = await create();
    const renamed = await client.put(`/routines/${routine.id}?user_id=${USER}`, { name: 'Digest' });
    expect(renamed.body).toMatchObject({ name: 'Digest', schedule: '0 9 * * 1-5', active: true });
    const paused = await client.put(`/routines/${routine.id}?user_id=${USER}`, { active: false });
    expect(paused.body).toMatchObject({ active: false, next_run_at: null, inactive_reason: null });
    expect((await client.put(`/routines/${routine.id}?user_id=bob`, { name: 'mine' })).status).toBe(404);
    expect((await client.delete(`/routines/${routine.id}?user_id=${USER}`)).status).toBe(204);
    expect((await client.get(`/routines/${routine.id}?user_id=${USER}`)).status).toBe(404);
  });

  it('runs one now: a Thread with inception "routine" whose reply completes', async () => {
    const routine = await create({ name: 'Now digest', active: false });
    const ran = await client.post(`/routines/${routine.id}/run?user_id=${USER}`);
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ inception: 'routine' });
    expect(ran.body.name).toMatch(/^Now digest \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(ran.body.messages[0]).toMatchObject({ role: 'user', content: '/say good morning' });
    const thread = await until(
      async () => (await client.get(`/chat/${ran.body.id}?user_id=${USER}`)).body,
      (got) => got.messages[1].live === false,
    );
    expect(thread.messages[1]).toMatchObject({ status: 'success', content: 'good morning' });
    expect((await client.get(`/routines/${routine.id}?user_id=${USER}`)).body).toMatchObject({
      last_thread_id: ran.body.id,
    });
  });

  it('fires once per slot with two workers running, never a slot twice', async () => {
    const routine = await create({
      name: 'Tick',
      schedule: '*/2 * * * * *',
      message: { content: '/say tick' },
    });
    const threads = await until(
      () => firedThreads('Tick'),
      (rows) => rows.length >= 4,
    );
    await client.put(`/routines/${routine.id}?user_id=${USER}`, { active: false });
    const stored = await firedThreads('Tick');
    expect(stored.length).toBeGreaterThanOrEqual(threads.length);
    // Each thread is the one of a distinct 2-second slot: its id is derived from the routine and the slot.
    const slots = new Map<string, number>();
    const first = Math.floor(stored[0].created_at.getTime() / 2000) * 2000 - 10000;
    const last = stored[stored.length - 1].created_at.getTime();
    for (let slot = first; slot <= last; slot += 2000)
      slots.set(firingThreadId(routine.id, new Date(slot)), slot);
    const firedSlots = stored.map((thread) => slots.get(thread.id));
    expect(firedSlots.every((slot) => slot !== undefined)).toBe(true);
    expect(new Set(firedSlots).size).toBe(stored.length);
    expect(stored.every((thread) => thread.inception === 'routine')).toBe(true);
  });

  it('stops with its reason when its agent is archived', async () => {
    const doomed = (await createAgent(environment.env, org.org)).id;
    const routine = await create({ name: 'Doomed', agent_id: doomed, schedule: '*/2 * * * * *' });
    expect((await client.delete(`/agents/${doomed}`)).status).toBe(204);
    const stopped = await until(
      async () => (await client.get(`/routines/${routine.id}?user_id=${USER}`)).body,
      (got) => got.active === false,
    );
    expect(stopped).toMatchObject({
      active: false,
      inactive_reason: 'its agent was archived',
      next_run_at: null,
    });
  });

  it('stops with its reason when the key that created it is revoked', async () => {
    const second = await admin<{ id: string; key: string }>(environment.env, [
      'keys:create',
      '--org',
      org.org,
    ]);
    const created = await api(gateway.url!, second.key).post('/routines', {
      name: 'Orphan',
      agent_id: agentId,
      user_id: USER,
      schedule: '*/2 * * * * *',
      message: { content: '/say orphan' },
    });
    expect(created.status).toBe(200);
    await admin(environment.env, ['keys:revoke', '--id', second.id]);
    const stopped = await until(
      async () => (await client.get(`/routines/${created.body.id}?user_id=${USER}`)).body,
      (got) => got.active === false,
    );
    expect(stopped.inactive_reason).toBe('the API key that created it was revoked');
  });

  it('fires a slot missed while no worker ran once, and re-registers schedules Redis lost', async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    workers = [];
    const routine = await create({ name: 'Yearly', schedule: '0 0 1 1 *' });
    const missedSlot = new Date(Math.floor(Date.now() / 60000) * 60000 - 3600000);
    await queryDatabase(environment.databaseUrl, 'UPDATE routines SET next_run_at = $2 WHERE id = $1', [
      routine.id,
      missedSlot,
    ]);
    // Redis loses everything of this deployment meanwhile, the routine's scheduler included.
    const redis = new Redis(environment.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`*${environment.redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    workers = [await startWorker(environment.env, workerEnv), await startWorker(environment.env, workerEnv)];
    const missed = await until(
      () => firedThreads('Yearly'),
      (rows) => rows.length >= 1,
    );
    expect(missed.map((thread) => thread.id)).toEqual([firingThreadId(routine.id, missedSlot)]);
    // Rescheduled from the next slot on, and the scheduler exists again: a paused routine switched back on
    // afterwards fires on its new schedule.
    const after = (await client.get(`/routines/${routine.id}?user_id=${USER}`)).body;
    expect(new Date(after.next_run_at).getTime()).toBeGreaterThan(Date.now());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await firedThreads('Yearly')).toHaveLength(1);
    // The scheduler Redis lost is back, set again from PostgreSQL by the starting workers.
    const redisAgain = new Redis(environment.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      expect(
        await redisAgain.keys(`*${environment.redisPrefix}*routine-firing:repeat:${routine.id}`),
      ).toHaveLength(1);
    } finally {
      redisAgain.disconnect();
    }
  });
});
