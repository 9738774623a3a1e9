import { QUEUE } from '@app/contracts';
import { useDeployment } from '../support/deployment';
import { startSlowReply } from './replies.support';
import { Line, numbered } from './stream.support';

const LOCK_MS = 4000;

/**
 * A run's job lock lost while the run goes on (its key was on a Redis master that died before replicating it, as
 * in the Redis Cluster chaos specs; here the key is deleted): BullMQ's stalled check puts the job back and the same
 * worker takes it again while its first execution still runs. The newer execution takes over the reply (the older
 * stops), and the reply completes once, gap-free. Before, the two executions took the reply's log from each other
 * and the first to end stopped the other's lock renewals, so the job stalled again and again: the reply never
 * completed.
 */
const deployment = useDeployment({
  workers: 1,
  // Info logs: the test counts the run's starts.
  workerEnv: {
    WORKER_HEALTH_PORT: '0',
    LOG_LEVEL: 'info',
    JOB_LOCK_MS: String(LOCK_MS),
    JOB_STALLED_INTERVAL_MS: '1000',
  },
  agent: true,
});

it('completes a reply, gap-free and once, after its running job lost its lock and the same worker took it again', async () => {
  const { words, replyId, stream } = await startSlowReply(deployment, 60, 100);
  await stream.waitFor((line) => line.type === 'text.delta' && (line.delta as string).includes('w3 '));

  const lockKey = `${deployment.environment.env.REDIS_PREFIX}:${QUEUE.agentRun}:${replyId}:lock`;
  expect(await deployment.redis.del(lockKey)).toBe(1);
  const lostAt = Date.now();

  const lines = numbered(await stream.all());
  expect(Date.now() - lostAt).toBeLessThan(30000);
  expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index));
  const completed = lines.at(-1) as Line & { message: { content: string; status: string } };
  expect(completed).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
  const deltas = lines.filter((line) => line.type === 'text.delta').map((line) => line.delta as string);
  expect(deltas.join('')).toBe(words.join(' '));
  // The same worker took the job again while the first execution ran, and the newer one took over: two starts,
  // then no more stalls and no run taking the log from another.
  const output = deployment.worker.output;
  const runStarts = output
    .split('\n')
    .filter((line) => line.includes('"msg":"run started"') && line.includes(replyId));
  expect(runStarts).toHaveLength(2);
  expect(output).toContain('a newer execution of the same job took over');
  expect(output).not.toContain('job stalled more than allowable limit');
  expect(output).not.toContain('run taken over by another worker');
}, 90000);
