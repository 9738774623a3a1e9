import { useDeployment } from '../support/deployment';
import { OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { queryDatabase } from '../support/test-environment';
import { runReply } from './models.support';
import { until } from './stream.support';

/**
 * Fair share between tenants on real processes, work-conserving (issue 29): no organization cap by default, so
 * one organization alone may use every slot; when slots run out, every organization's first outstanding reply
 * goes before anyone's second (the queue's priority), so another organization never waits behind a backlog.
 */
const deployment = useDeployment({ gateways: 0, org: false });
let orgA: OrgFixture;
let orgB: OrgFixture;
let agentA: string;
let agentB: string;
const apps: AppProcess[] = [];

beforeAll(async () => {
  [orgA, orgB] = await Promise.all([deployment.createOrg(), deployment.createOrg()]);
  [agentA, agentB] = await Promise.all([
    deployment.createAgent([], orgA.org).then((agent) => agent.id),
    deployment.createAgent([], orgB.org).then((agent) => agent.id),
  ]);
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()));
});

/** Starts a gateway and one worker with these settings; answers the gateway. */
async function stack(workerEnv: Record<string, string> = {}): Promise<AppProcess> {
  // Each process is kept for afterEach as soon as it runs, so one that started is stopped even if the other fails.
  const [gateway] = await Promise.all([
    startGateway(deployment.environment.env).then((app) => (apps.push(app), app)),
    startWorker(deployment.environment.env, { WORKER_HEALTH_PORT: '0', ...workerEnv }).then((app) =>
      apps.push(app),
    ),
  ]);
  return gateway;
}

const runningOf = async (org: OrgFixture) => {
  const [row] = await queryDatabase<{ running: number }>(
    deployment.environment.databaseUrl,
    `SELECT count(*)::int AS running FROM messages WHERE live AND status = 'running' AND org_id = $1`,
    [org.orgId],
  );
  return row.running;
};

/** The organization's replies not ended yet, pending or running. */
const liveOf = async (org: OrgFixture) => {
  const [row] = await queryDatabase<{ live: number }>(
    deployment.environment.databaseUrl,
    `SELECT count(*)::int AS live FROM messages WHERE live AND org_id = $1`,
    [org.orgId],
  );
  return row.live;
};

const slowReply = (words: number, sleepMs: number) =>
  `/sleep ${sleepMs}\n/say ${Array.from({ length: words }, (_, i) => `w${i}`).join(' ')}`;

/** Posts `count` replies of organization A, each in a thread of its own; answers their ids. */
async function flood(gatewayUrl: string, count: number, content: string): Promise<string[]> {
  const client = api(gatewayUrl, orgA.key);
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      client.post('/chat', { message: { content }, options: { agent_id: agentA, user_id: `a-${i}` } }),
    ),
  );
  expect(started.map((response) => response.status)).toEqual(Array(count).fill(200));
  return started.map((response) => (response.body as { messages: { id: string }[] }).messages[1].id);
}

it('lets one organization alone run every reply at once, and answers another at once meanwhile', async () => {
  const gateway = await stack();
  // Twenty replies of three seconds each: with the defaults, all of them run together (no cap of 8 any more).
  await flood(gateway.url!, 20, slowReply(12, 250));
  await until(async () => (await runningOf(orgA)) === 20, 15000);

  const before = Date.now();
  const reply = await runReply(gateway.url!, orgB.key, agentB, '/say ok');
  expect(reply.message).toMatchObject({ status: 'success', content: 'ok' });
  expect(Date.now() - before).toBeLessThan(2000);
  await until(async () => (await liveOf(orgA)) === 0, 30000);
});

it("serves another organization's reply at the next free slot, never behind a backlog", async () => {
  // Two slots; organization A queues ten two-second replies: five rounds.
  const gateway = await stack({ AGENT_RUN_CONCURRENCY: '2' });
  const backlog = await flood(gateway.url!, 10, slowReply(8, 250));
  await until(async () => (await runningOf(orgA)) === 2, 15000);

  const reply = await runReply(gateway.url!, orgB.key, agentB, '/say ok');
  expect(reply.message).toMatchObject({ status: 'success', content: 'ok' });

  // B went before every reply of A that was still waiting when it came: when it completed, at most A's first
  // round had.
  const [b] = await queryDatabase<{ completed_at: Date }>(
    deployment.environment.databaseUrl,
    `SELECT completed_at FROM messages WHERE org_id = $1 AND role = 'assistant' ORDER BY created_at DESC LIMIT 1`,
    [orgB.orgId],
  );
  // Between two rounds none may be running while some still wait: wait for all to end.
  await until(async () => (await liveOf(orgA)) === 0, 60000);
  const finishedBeforeB = await queryDatabase<{ n: number }>(
    deployment.environment.databaseUrl,
    `SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND completed_at < $2`,
    [backlog, b.completed_at],
  );
  expect(finishedBeforeB[0].n).toBeLessThanOrEqual(2);
  const done = await queryDatabase<{ n: number }>(
    deployment.environment.databaseUrl,
    `SELECT count(*)::int AS n FROM messages WHERE id = ANY($1) AND status = 'success'`,
    [backlog],
  );
  expect(done[0].n).toBe(10);
});
