import { setTimeout as sleep } from 'node:timers/promises';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { AdmissionAnswer, admissionState, storedThreads as storedThreadsOf } from './admission.support';
import { until } from './stream.support';

/**
 * Admission by the time a reply takes to start: when PostgreSQL is what is slow, requests queue for it in the
 * gateway while the run backlog stays empty and the event loop idles, so only the starts' own time shows it. Here
 * every thread's insert is made to take 400 ms (a trigger that sleeps), against a bound of 300 ms. The starts are
 * timed where every protocol starts a reply (ReplyAdmission), so a protocol's starts count as the JSONL API's do.
 */
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let agentId: string;

const SLOW_INSERTS = `
  CREATE FUNCTION parley_test_slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN PERFORM pg_sleep(0.4); RETURN NEW; END $$;
  CREATE TRIGGER parley_test_slow_insert BEFORE INSERT ON threads
    FOR EACH ROW EXECUTE FUNCTION parley_test_slow_insert();`;
const FAST_INSERTS = `
  DROP TRIGGER parley_test_slow_insert ON threads; DROP FUNCTION parley_test_slow_insert();`;

beforeAll(async () => {
  environment = await createTestEnvironment();
  [gateway, worker] = await Promise.all([
    // Only the starts' time decides here: the other two figures are off.
    startGateway(environment.env, {
      ADMISSION_MAX_QUEUED_RUNS: '0',
      ADMISSION_MAX_EVENT_LOOP_DELAY_MS: '0',
      ADMISSION_MAX_REPLY_START_MS: '300',
    }),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0' }),
  ]);
  org = await createOrg(environment.env);
  agentId = (await createAgent(environment.env, org.org)).id;
}, 120000);

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.dispose();
});

const admission = () => admissionState(gateway.url!);
const storedThreads = (userId: string) => storedThreadsOf(environment.databaseUrl, org.orgId, userId);

function startChat(userId: string) {
  return api(gateway.url!, org.key).post('/chat', {
    message: { content: '/say hello' },
    options: { agent_id: agentId, user_id: userId },
  });
}

/** A start through the OpenAI Responses API, as a client of that protocol makes it (a blocking request). */
function startResponse(userId: string) {
  return api(gateway.url!, org.key).post('/openai/v1/responses', {
    model: agentId,
    input: '/say hello',
    user: userId,
  });
}

/**
 * Six users keep starting replies through `start`, each start now taking 400 ms or more; staggered, so that every
 * quarter second sees some start end (a quarter second in which none ended has no figure and does not count).
 * Answers once admission has closed: what it said then, and `stop`, which ends the users' loops (their last
 * starts awaited). Every start is admitted or refused, nothing else.
 */
async function slowStartsUntilClosed(
  start: (userId: string) => Promise<{ status: number }>,
  userPrefix: string,
): Promise<{ closed: AdmissionAnswer['body']; stop: () => Promise<void> }> {
  let usersStop = false;
  const users = Array.from({ length: 6 }, async (_, user) => {
    await sleep(user * 70);
    while (!usersStop) expect([200, 503]).toContain((await start(`${userPrefix}-${user}`)).status);
  });
  const stop = async () => {
    usersStop = true;
    await Promise.all(users);
  };
  let closed: AdmissionAnswer['body'] | undefined;
  try {
    await until(async () => {
      const { status, body } = await admission();
      if (status === 503) closed = body;
      return closed !== undefined;
    }, 15000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { closed: closed!, stop };
}

it('refuses new replies while even the fastest start is slow, and admits again once starts are fast', async () => {
  expect(await admission()).toMatchObject({ status: 200, body: { admitting: true } });
  await queryDatabase(environment.databaseUrl, SLOW_INSERTS);
  try {
    // Users keep starting conversations until admission closes.
    const { closed, stop } = await slowStartsUntilClosed(startChat, 'u-slow');
    expect(closed.admitting).toBe(false);
    expect(closed.reply_start_ms).toBeGreaterThanOrEqual(300);

    // Refusing while it lasts (it reopens for a quarter second when no start ended in the last one, to look
    // again): a start is refused, and nothing of it is stored.
    let refusedUser: string | undefined;
    for (let attempt = 0; attempt < 50 && !refusedUser; attempt++) {
      const posted = await startChat(`u-probe-${attempt}`);
      if (posted.status !== 503) continue;
      refusedUser = `u-probe-${attempt}`;
      expect(posted.headers.get('retry-after')).toBe('1');
      expect(posted.body).toEqual({ detail: 'Service at capacity; retry later' });
    }
    expect(refusedUser).toBeDefined();
    expect(await storedThreads(refusedUser!)).toBe(0);
    await stop();
  } finally {
    await queryDatabase(environment.databaseUrl, FAST_INSERTS);
  }

  // Starts are fast again: admission stays open, and a start is stored.
  await until(async () => (await admission()).status === 200, 5000);
  const accepted = await startChat('u-after');
  expect(accepted.status).toBe(200);
  expect(await storedThreads('u-after')).toBe(1);
});

it("counts every protocol's starts: starts made only through the Responses API close admission as well", async () => {
  await until(async () => (await admission()).status === 200, 5000);
  await queryDatabase(environment.databaseUrl, SLOW_INSERTS);
  try {
    const { closed, stop } = await slowStartsUntilClosed(startResponse, 'u-responses');
    expect(closed.reply_start_ms).toBeGreaterThanOrEqual(300);
    await stop();
  } finally {
    await queryDatabase(environment.databaseUrl, FAST_INSERTS);
  }
  await until(async () => (await admission()).status === 200, 5000);
});
