import { Settings } from '@app/config';
import { SyncSource } from '@app/knowledge';
import { SOURCE_SYNC_JOB, SOURCE_SYNC_TICK_JOB, SourceSyncQueue } from '@app/queues';
import { UnknownJobError } from '../jobs/job-handlers';
import { memoryJob } from '../jobs/testing/memory-job';
import { ScheduledSyncJobHandler } from './scheduled-sync.job-handler';
import { SourceSyncProcessor } from './source-sync.processor';
import { SyncSourceJobHandler } from './sync-source.job-handler';

/** The consumer's settings its processor reads: the lock duration. */
const WORKER_SETTINGS = { jobLockMs: 30000 } as Settings;

/** The `source-sync` consumer with its real handlers: what was synced here, and what was queued as a sync. */
function world() {
  const synced: number[] = [];
  const queued: number[] = [];
  const syncSource = {
    execute: (sourceId: number) => (synced.push(sourceId), Promise.resolve()),
  } as unknown as SyncSource;
  const syncs = {
    enqueue: (sourceId: number) => (queued.push(sourceId), Promise.resolve(true)),
  } as unknown as SourceSyncQueue;
  const processor = new SourceSyncProcessor(
    WORKER_SETTINGS,
    new SyncSourceJobHandler(syncSource),
    new ScheduledSyncJobHandler(syncs),
  );
  return { processor, synced, queued };
}

describe('SourceSyncProcessor', () => {
  it(`syncs the source of a "${SOURCE_SYNC_JOB}" job here`, async () => {
    const { processor, synced, queued } = world();
    await processor.process(memoryJob(SOURCE_SYNC_JOB, { sourceId: 7 }).job);
    expect(synced).toEqual([7]);
    expect(queued).toEqual([]);
  });

  it(`only asks for a sync on a scheduler's "${SOURCE_SYNC_TICK_JOB}" job, so it never runs beside a queued one`, async () => {
    const { processor, synced, queued } = world();
    await processor.process(memoryJob(SOURCE_SYNC_TICK_JOB, { sourceId: 7 }).job);
    expect(synced).toEqual([]);
    expect(queued).toEqual([7]);
  });

  it('fails a job of a name it does not know, rather than running it as a sync', async () => {
    const { processor, synced, queued } = world();
    await expect(processor.process(memoryJob('sync', { sourceId: 7 }).job)).rejects.toThrow(
      new UnknownJobError('source-sync', 'sync', [SOURCE_SYNC_JOB, SOURCE_SYNC_TICK_JOB]),
    );
    expect(synced).toEqual([]);
    expect(queued).toEqual([]);
  });
});
