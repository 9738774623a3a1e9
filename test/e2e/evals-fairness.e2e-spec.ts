import { useDeployment } from '../support/deployment';
import { queryDatabase } from '../support/test-environment';
import { OpenStream } from './stream.support';

/**
 * An evaluation shares the workers with live traffic (CONTRACTS §23): a run keeps at most EVAL_ITEMS_IN_FLIGHT items in flight
 * (4 here, set on the worker), so its organization's backlog in the run queue's fair share (AgentRunQueue) grows by at most that many, and a live
 * user of the same organization waits behind those few, never behind the run's hundreds of items. With two
 * worker slots, the run's replies take every slot while no one else asks.
 */
const ITEMS = 200;
const IN_FLIGHT = 4;
/** The run's items in flight, and the two slots whose replies were already running when the live one arrived. */
const MOST_AHEAD = IN_FLIGHT + 2;

const deployment = useDeployment({
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0', AGENT_RUN_CONCURRENCY: '2', EVAL_ITEMS_IN_FLIGHT: String(IN_FLIGHT) },
  timeoutMs: 120000,
});

it("answers the organization's live user after at most the run's replies in flight, not its backlog", async () => {
  const client = deployment.client();
  const agentId = (await client.post('/agents', { name: 'busy' })).body.id as string;
  const items = Array.from({ length: ITEMS }, (_, index) => ({
    input: { content: `/say item ${index} a b c` },
  }));
  const dataset = await client.post('/evals/datasets', { name: 'many', items });
  const run = await client.post('/evals/runs', { dataset_id: dataset.body.id, agent_id: agentId });
  expect(run.status).toBe(202);

  const scored = async () => {
    const [row] = await queryDatabase<{ n: number }>(
      deployment.environment.databaseUrl,
      `SELECT count(*)::int AS n FROM eval_run_items WHERE run_id = $1 AND passed IS NOT NULL`,
      [run.body.id],
    );
    return row.n;
  };
  // The run is well under way: its replies hold both slots.
  const deadline = Date.now() + 60000;
  while ((await scored()) < 20) {
    if (Date.now() > deadline) throw new Error('the run made no progress');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const live = await client.post('/chat', {
    message: { content: '/say hello from a person' },
    options: { agent_id: agentId, user_id: 'alice' },
  });
  const replyId = live.body.messages[1].id as string;
  await new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream`, deployment.org.key).all();

  // The eval replies that ended while the live one waited and ran: at most those already queued or running.
  const [{ ahead, left }] = await queryDatabase<{ ahead: number; left: number }>(
    deployment.environment.databaseUrl,
    `SELECT count(*) FILTER (WHERE m.completed_at > l.created_at AND m.completed_at < l.completed_at)::int AS ahead,
            count(*) FILTER (WHERE i.reply_id IS NULL)::int AS left
     FROM eval_run_items i LEFT JOIN messages m ON m.id = i.reply_id, messages l
     WHERE i.run_id = $1 AND l.id = $2`,
    [run.body.id, replyId],
  );
  expect(ahead).toBeLessThanOrEqual(MOST_AHEAD);
  // The run still had most of its items to go: they were no queue in front of the live reply.
  expect(left).toBeGreaterThan(ITEMS / 2);
});
