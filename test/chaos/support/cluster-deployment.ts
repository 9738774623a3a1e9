import { AppProcess } from '../../support/processes';
import { RedisCluster } from '../../support/redis-cluster';
import { ChaosStack, timeUntil } from './chaos-stack';

/** The job and sweep timers at their defaults: the queue master's failover must be quick without tuning them. */
export const DEFAULT_TIMERS = {
  JOB_LOCK_MS: undefined,
  JOB_STALLED_INTERVAL_MS: undefined,
  RUN_SWEEP_INTERVAL_MS: undefined,
  RUN_SWEEP_AFTER_MS: undefined,
};

/** What the Redis Cluster suites run on: a cluster of three masters with a replica each, a stack on it, its gateway. */
export interface ClusterDeployment {
  cluster: RedisCluster;
  stack: ChaosStack;
  gateway: AppProcess;
}

/**
 * Starts the deployment: the cluster, a stack on it with `env` besides its REDIS_URL, a gateway and `workers`
 * workers. Slow (six Redis servers, a PostgreSQL cluster and the processes): allow it 180 s.
 */
export async function startClusterDeployment(
  env: NodeJS.ProcessEnv,
  workers: number,
): Promise<ClusterDeployment> {
  const cluster = await RedisCluster.start({ replicas: 1 });
  let stack: ChaosStack | undefined;
  try {
    stack = await ChaosStack.start({ REDIS_URL: cluster.url, ...env });
    const gateway = await stack.startGateway();
    for (let worker = 0; worker < workers; worker++) await stack.startWorker({ WORKER_HEALTH_PORT: '0' });
    return { cluster, stack, gateway };
  } catch (error) {
    // A start that fails halfway leaves no servers behind for the next suite.
    await stack?.dispose();
    await cluster.stop();
    throw error;
  }
}

export async function stopClusterDeployment(deployment: ClusterDeployment | undefined): Promise<void> {
  await deployment?.stack.dispose();
  await deployment?.cluster.stop();
}

/**
 * In a describe: the deployment startClusterDeployment starts, before the describe's tests (on two busy cores this
 * once took over 120 s), and stopped after them. Its fields are set by the time the tests run.
 */
export function onClusterDeployment(env: NodeJS.ProcessEnv, workers: number): ClusterDeployment {
  const deployment = {} as ClusterDeployment;
  let started: ClusterDeployment | undefined;
  beforeAll(async () => {
    started = await startClusterDeployment(env, workers);
    Object.assign(deployment, started);
  }, 180000);
  afterAll(() => stopClusterDeployment(started));
  return deployment;
}

/**
 * SIGKILLs the master `master`, waits (up to 60 s) until another serves the slot of `key` (its replica promoted)
 * and until the cluster is healed; answers when the kill was and how long the promotion took.
 */
export async function killMaster(
  cluster: RedisCluster,
  master: number,
  key: string,
): Promise<{ killedAt: number; promotionMs: number }> {
  cluster.kill(master);
  const killedAt = Date.now();
  const promotionMs = await timeUntil(
    async () => (await cluster.masterOf(key)) !== master,
    60000,
    'the replica promoted',
  );
  await cluster.healed();
  return { killedAt, promotionMs };
}
