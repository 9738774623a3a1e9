import { Settings } from '@app/config';
import { ERASE_USER_JOB, RETENTION_JOB } from '@app/queues';
import { UnknownJobError } from '../jobs/job-handlers';
import { memoryJob } from '../jobs/testing/memory-job';
import { ApplyRetentionJobHandler } from './apply-retention.job-handler';
import { ApplyRetention } from './apply-retention.use-case';
import { EraseUserJobHandler } from './erase-user.job-handler';
import { EraseUser } from './erase-user.use-case';
import { ErasureProcessor } from './erasure.processor';

/** The consumer's settings its processor reads: the lock duration. */
const WORKER_SETTINGS = { jobLockMs: 30000 } as Settings;

/** The `erasure` consumer with its real handlers over recording use cases. */
function world() {
  const done: string[] = [];
  const eraseUser = {
    execute: (erasureId: string) => (done.push(`erase ${erasureId}`), Promise.resolve()),
  } as unknown as EraseUser;
  const applyRetention = {
    execute: () => (done.push('retention'), Promise.resolve({})),
  } as unknown as ApplyRetention;
  const processor = new ErasureProcessor(
    WORKER_SETTINGS,
    new EraseUserJobHandler(eraseUser),
    new ApplyRetentionJobHandler(applyRetention),
  );
  return { processor, done };
}

describe('ErasureProcessor', () => {
  it(`runs the erasure a "${ERASE_USER_JOB}" job names, and no retention`, async () => {
    const { processor, done } = world();
    await processor.process(memoryJob(ERASE_USER_JOB, { erasureId: 'erasure-1' }).job);
    expect(done).toEqual(['erase erasure-1']);
  });

  it(`runs retention for an "${RETENTION_JOB}" job (its scheduler's, with no data), and no erasure`, async () => {
    const { processor, done } = world();
    await processor.process(memoryJob(RETENTION_JOB, {}).job);
    expect(done).toEqual(['retention']);
  });

  it('fails a job of a name it does not know, rather than running it as an erasure', async () => {
    const { processor, done } = world();
    await expect(processor.process(memoryJob('erase-users', { erasureId: 'erasure-1' }).job)).rejects.toThrow(
      new UnknownJobError('erasure', 'erase-users', [ERASE_USER_JOB, RETENTION_JOB]),
    );
    expect(done).toEqual([]);
  });
});
