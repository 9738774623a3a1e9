import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { runReply } from './models.support';
import { until } from './stream.support';

/**
 * Fairness between tenants on real processes: one worker with the default AGENT_RUN_CONCURRENCY (16) and
 * AGENT_RUN_ORG_CONCURRENCY (8). Organization A starts twenty slow replies; organization B's one-word reply does
 * not wait for them, and A never has more than its cap running.
 */
const ORG_CAP = 8;
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let orgA: OrgFixture;
let orgB: OrgFixture;
let agentA: string;
let agentB: string;

beforeAll(async () => {
  environment = await createTestEnvironment();
  [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0' }),
  ]);
  [orgA, orgB] = await Promise.all([createOrg(environment.env), createOrg(environment.env)]);
  [agentA, agentB] = await Promise.all([
    createAgent(environment.env, orgA.org).then((agent) => agent.id),
    createAgent(environment.env, orgB.org).then((agent) => agent.id),
  ]);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.dispose();
});

/** The organization's replies running now, and the live replies of every organization. */
const counts = async (org: OrgFixture) => {
  const [row] = await queryDatabase<{ running: number; live: number }>(
    environment.databaseUrl,
    `SELECT count(*) FILTER (WHERE org_id = $1 AND status = 'running')::int AS running, count(*)::int AS live
     FROM messages WHERE live`,
    [org.orgId],
  );
  return row;
};
const runningOf = async (org: OrgFixture) => (await counts(org)).running;

it("answers another organization's one-word reply promptly while one organization runs twenty slow replies", async () => {
  const client = api(gateway.url!, orgA.key);
  // Each of A's replies streams twelve words half a second apart: six seconds of a worker slot.
  const slow = `/sleep 500\n/say ${Array.from({ length: 12 }, (_, i) => `w${i}`).join(' ')}`;
  const started = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      client.post('/chat', {
        message: { content: slow },
        options: { agent_id: agentA, user_id: `a-user-${i}` },
      }),
    ),
  );
  expect(started.map((response) => response.status)).toEqual(Array(20).fill(200));
  await until(async () => (await runningOf(orgA)) === ORG_CAP, 15000);

  const before = Date.now();
  const reply = await runReply(gateway.url!, orgB.key, agentB, '/say ok');
  const waited = Date.now() - before;
  expect(reply.message).toMatchObject({ status: 'success', content: 'ok' });
  // Without the cap A's runs fill all sixteen slots and B waits for one to end (about six seconds).
  expect(waited).toBeLessThan(2000);
  expect(await runningOf(orgA)).toBeLessThanOrEqual(ORG_CAP);

  // A's replies all end, none lost while waiting, and never more than the cap run at once.
  let most = 0;
  await until(async () => {
    const { running, live } = await counts(orgA);
    most = Math.max(most, running);
    return live === 0;
  }, 60000);
  expect(most).toBeLessThanOrEqual(ORG_CAP);
  const [done] = await queryDatabase<{ n: number }>(
    environment.databaseUrl,
    `SELECT count(*)::int AS n FROM messages WHERE role = 'assistant' AND status = 'success'`,
  );
  expect(done.n).toBe(21);
});
