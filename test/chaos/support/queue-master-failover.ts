import { AppProcess } from '../../support/processes';
import { RedisCluster } from '../../support/redis-cluster';
import { ChaosStack } from './chaos-stack';

/** The job and sweep timers at their defaults: the failover must be quick without tuning them. */
const DEFAULT_TIMERS = {
  JOB_LOCK_MS: undefined,
  JOB_STALLED_INTERVAL_MS: undefined,
  RUN_SWEEP_INTERVAL_MS: undefined,
  RUN_SWEEP_AFTER_MS: undefined,
};

/** What the queue master's failover suites run on: a Redis Cluster with a replica per master, a gateway, two workers. */
export interface FailoverDeployment {
  cluster: RedisCluster;
  stack: ChaosStack;
  gateway: AppProcess;
}

/** Starts the deployment; slow (six Redis servers, a PostgreSQL cluster, three processes): allow it 180 s. */
export async function startFailoverDeployment(): Promise<FailoverDeployment> {
  const cluster = await RedisCluster.start({ replicas: 1 });
  let stack: ChaosStack | undefined;
  try {
    stack = await ChaosStack.start({ REDIS_URL: cluster.url, ...DEFAULT_TIMERS });
    const gateway = await stack.startGateway();
    await stack.startWorker({ WORKER_HEALTH_PORT: '0' });
    await stack.startWorker({ WORKER_HEALTH_PORT: '0' });
    return { cluster, stack, gateway };
  } catch (error) {
    // A start that fails halfway leaves no servers behind for the next suite.
    await stack?.dispose();
    await cluster.stop();
    throw error;
  }
}

export async function stopFailoverDeployment(deployment: FailoverDeployment | undefined): Promise<void> {
  await deployment?.stack.dispose();
  await deployment?.cluster.stop();
}
