import { createAgent, createOrg } from '../factories/admin';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { RedisCluster } from '../support/redis-cluster';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { conversationSuite, Deployment } from './engines.support';

/**
 * Two gateways and a worker on a real three-master Redis Cluster (REDIS_URL=redis-cluster://…): BullMQ under
 * its hash-tagged prefix, reply events (a script over a stream and its owner token), pub/sub for live lines and
 * cancellation. Requests alternate between the gateways.
 */
let cluster: RedisCluster;
let environment: TestEnvironment;
const processes: AppProcess[] = [];
let deployment: Deployment;
let calls = 0;

beforeAll(async () => {
  cluster = await RedisCluster.start();
  environment = await createTestEnvironment({ REDIS_URL: cluster.url });
  // One at a time: four Nest apps booting at once on two shared cores starve each other.
  const first = await startGateway(environment.env);
  processes.push(first);
  const second = await startGateway(environment.env);
  processes.push(second);
  processes.push(await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' }));
  const org = await createOrg(environment.env);
  const agent = await createAgent(environment.env, org.org);
  const gateways = [first.url!, second.url!];
  deployment = {
    get gatewayUrl() {
      return gateways[calls++ % gateways.length];
    },
    key: org.key,
    agentId: agent.id,
    databaseUrl: environment.databaseUrl,
  };
}, 120000);

afterAll(async () => {
  await Promise.all(processes.map((process) => process.stop()));
  await environment?.dispose();
  await cluster?.stop();
});

describe('on a three-master Redis Cluster', () => {
  conversationSuite(() => deployment);

  it('spread its keys over more than one master', async () => {
    const perNode = await cluster.keysPerNode();
    expect(perNode.filter((keys) => keys > 0).length).toBeGreaterThan(1);
  });
});
