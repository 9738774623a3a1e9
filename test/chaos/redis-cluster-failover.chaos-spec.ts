import { timeUntil } from './support/chaos-stack';
import { DEFAULT_TIMERS, killMaster, onClusterDeployment } from './support/cluster-deployment';
import { onlyCompleted, openLoop, readReply, settle, startConversation } from './support/conversations';
import { report } from './support/report';

/**
 * Issue 37 item 1 and 36 item 4: on a Redis Cluster of three masters with a replica each, the master holding the
 * queues is SIGKILLed under open-loop load; Redis promotes its replica, and no Parley process is restarted.
 * Every accepted reply completes, and the replies that were live at the kill are finished within about twice
 * Redis's own promotion time (plus what their script still had to say). Every process logs the failover in one
 * line (which master, what it resumed) and prints no stack trace.
 */
describe('Redis Cluster losing the queue master under load', () => {
  // Two workers and a gateway at the default job timers.
  const deployment = onClusterDeployment(DEFAULT_TIMERS, 2);

  it('promotes the replica and finishes every live reply within about twice the promotion time', async () => {
    const { cluster, stack, gateway } = deployment;
    const content = (i: number) => `/tool clock {}\n/sleep 200\n/say reply ${i} across the failover`;
    const load = openLoop(() => stack.client(), stack.agentId, content, 200);
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const queueMaster = await cluster.masterOf(`{${stack.env.REDIS_PREFIX}}`);
    const liveAtKill = load.started();
    const finishing = liveAtKill.map((id) =>
      readReply(gateway.url!, stack.key, id, 60000).then((result) => ({ ...result, at: Date.now() })),
    );
    const { killedAt, promotionMs } = await killMaster(cluster, queueMaster, `{${stack.env.REDIS_PREFIX}}`);
    const finished = await Promise.all(finishing);
    const liveRepliesDoneMs = Math.max(...finished.map((result) => result.at - killedAt));
    await timeUntil(
      async () => {
        const id = await startConversation(stack.client(), stack.agentId, '/say after the failover');
        return (await readReply(gateway.url!, stack.key, id, 5000)).completed;
      },
      60000,
      'a new conversation completed after the failover',
    );
    const newReplyMs = Date.now() - killedAt;
    const { started, refusals } = await load.stop();

    const counts = await settle(gateway.url!, stack.key, stack.env.DATABASE_URL!, started, 30000);
    report('redis-cluster-failover', {
      fault:
        'the Redis Cluster master holding the queues SIGKILLed (3 masters, 3 replicas, node timeout 5 s)',
      load: 'open loop: a conversation with a tool call every 200 ms, 2 workers and a gateway at default timers',
      counts,
      expectedErrors: `answers other than 200, by status: ${JSON.stringify(refusals)} (503 expected)`,
      timings: {
        promotionMs,
        liveRepliesDoneMs,
        newReplyAfterKillMs: newReplyMs,
        liveAtKill: liveAtKill.length,
      },
    });
    // Each process says once what failed over (and what it resumed), instead of printing stack traces.
    for (const app of [gateway, ...stack.workers]) {
      // The line comes once the process has seen no Redis error for 5 s: a process whose last error came late in
      // the recovery has not written it yet when the replies are settled.
      await app.waitForOutput('"msg":"redis master failed over"', 20000);
      const lines = app.output.split('\n').filter((line) => line.trim() !== '');
      expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
      const failovers = lines
        .map((line) => JSON.parse(line))
        .filter((line) => line.msg === 'redis master failed over');
      expect(failovers).toHaveLength(1);
      expect(failovers[0].failedOver).toContainEqual(
        expect.objectContaining({ from: `127.0.0.1:${queueMaster}` }),
      );
    }
    expect(finished.every((result) => result.completed)).toBe(true);
    expect(Object.keys(refusals).filter((status) => status !== '503')).toEqual([]);
    expect(liveRepliesDoneMs).toBeLessThan(2 * promotionMs + 3000);
    expect(counts).toEqual(onlyCompleted(started.length));
  }, 240000);
});
