import { RedisCluster } from '../support/redis-cluster';
import { ChaosStack } from './support/chaos-stack';
import { noCounts, readReply, startConversation } from './support/conversations';
import { report } from './support/report';

const COLD_STARTS = 10;
const STREAMS_PER_START = 20;

/**
 * Issue 37 item 2: a gateway started against a Redis Cluster, with streams opened on it all at once the moment
 * it reports ready (as a load balancer sends them), answers every one of them 200 with the whole reply. Before
 * the stream subscriber waited for the cluster's subscriber node to pass its ready check, 9 to 11 of 160 such
 * opens answered 500 ("ERR Can't execute 'info'": a SUBSCRIBE written before the node's INFO ready check). Each
 * gateway is killed, not stopped: only its start is under test. About a minute.
 */
describe('cold gateway starts on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let stack: ChaosStack;

  beforeAll(async () => {
    cluster = await RedisCluster.start();
    stack = await ChaosStack.start({ REDIS_URL: cluster.url });
    await stack.startGateway();
    await stack.startWorker({ WORKER_HEALTH_PORT: '0' });
  }, 120000);

  afterAll(async () => {
    await stack?.dispose();
    await cluster?.stop();
  });

  it('answers every stream opened at once on a just-ready gateway, never 500', async () => {
    const replies = await Promise.all(
      Array.from({ length: STREAMS_PER_START }, (_, i) =>
        startConversation(stack.client(), stack.agentId, `/say reply ${i}`),
      ),
    );
    for (const id of replies)
      expect((await readReply(stack.gateways[0].url!, stack.key, id, 30000)).completed).toBe(true);

    const statuses: Record<string, number> = {};
    for (let start = 0; start < COLD_STARTS; start++) {
      const gateway = await stack.startGateway();
      const answers = await Promise.all(
        replies.map(async (id) => {
          const response = await fetch(`${gateway.url}/chat/messages/${id}/stream?after=0`, {
            headers: { 'x-service-token': stack.key },
          });
          const lines = (await response.text()).trim().split('\n');
          // A 200 whose body broke off would hide the same fault: the replay must reach the reply's last line.
          const complete = response.ok && lines[lines.length - 1].includes('"type":"message.completed"');
          return response.ok && !complete ? 'incomplete 200' : String(response.status);
        }),
      );
      for (const answer of answers) statuses[answer] = (statuses[answer] ?? 0) + 1;
      await gateway.kill();
    }

    report('redis-cluster-cold-start', {
      fault: `${COLD_STARTS} cold gateway starts on a 3-master Redis Cluster`,
      load: `${STREAMS_PER_START} streams opened at once on each, the moment it reported ready`,
      counts: noCounts(),
      expectedErrors: `answers by status: ${JSON.stringify(statuses)}`,
    });
    expect(statuses).toEqual({ 200: COLD_STARTS * STREAMS_PER_START });
  }, 240000);
});
