import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE } from '@app/contracts';
import { AGENT_RUN_JOB, APPROVAL_DEADLINE_JOB, ERASE_USER_JOB, RETENTION_JOB } from '@app/queues';
import { useDeployment } from '../support/deployment';

/**
 * A worker hands each job to its name's handler: the names a running deployment enqueued are still handled after
 * an upgrade, and a job under a name it does not know fails with a message saying so, instead of being run as
 * another kind of job (or dropped).
 */
let redis: Redis;
let erasures: Queue;
let agentRuns: Queue;

// Declared before the deployment's hooks: the queues close before its worker stops and its Redis keys go.
afterAll(async () => {
  await Promise.all([erasures?.close(), agentRuns?.close()]);
  redis?.disconnect();
});

const deployment = useDeployment({
  gateways: 0,
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0' },
  org: false,
});

beforeAll(() => {
  const { env, redisPrefix } = deployment.environment;
  redis = new Redis(env.REDIS_URL!, { maxRetriesPerRequest: null });
  erasures = new Queue(QUEUE.erasure, { connection: redis, prefix: redisPrefix });
  agentRuns = new Queue(QUEUE.agentRun, { connection: redis, prefix: redisPrefix });
});

/** The job once the worker is done with it: completed or failed. */
async function settled(queue: Queue, jobId: string, timeoutMs = 30000): Promise<{ state: string; job: Job }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await queue.getJobState(jobId);
    // Read after its state: a job read before settled has neither its failedReason nor its return value yet.
    if (state === 'completed' || state === 'failed') return { state, job: (await queue.getJob(jobId))! };
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('fails an erasure-queue job of an unknown name, naming it and the names the queue handles', async () => {
  await erasures.add('erase-everything', { erasureId: 'e1' }, { jobId: 'unknown-1' });

  const { state, job } = await settled(erasures, 'unknown-1');

  expect(state).toBe('failed');
  expect(job.failedReason).toBe(
    `No handler for job "erase-everything" on queue "erasure" (handled: ${ERASE_USER_JOB}, ${RETENTION_JOB})`,
  );
});

it('still runs retention from a job under the name the deployment always used', async () => {
  await erasures.add(RETENTION_JOB, {}, { jobId: 'retention-1' });

  const { state, job } = await settled(erasures, 'retention-1');

  expect({ state, failedReason: job.failedReason }).toEqual({ state: 'completed', failedReason: undefined });
});

it('fails an agent-run job of an unknown name rather than running it as a reply', async () => {
  await agentRuns.add(
    'run-agent',
    { messageId: '0190a5e4-0000-7000-8000-000000000001' },
    { jobId: 'unknown-2' },
  );

  const { state, job } = await settled(agentRuns, 'unknown-2');

  expect(state).toBe('failed');
  expect(job.failedReason).toBe(
    `No handler for job "run-agent" on queue "agent-run" (handled: ${AGENT_RUN_JOB}, ${APPROVAL_DEADLINE_JOB})`,
  );
});
