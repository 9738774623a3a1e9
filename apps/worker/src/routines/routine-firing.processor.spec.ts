import { Settings } from '@app/config';
import { FireRoutine } from '@app/routines';
import { ROUTINE_FIRING_JOB } from '@app/queues';
import { UnknownJobError } from '../jobs/job-handlers';
import { memoryJob } from '../jobs/testing/memory-job';
import { FireRoutineJobHandler } from './fire-routine.job-handler';
import { RoutineFiringProcessor } from './routine-firing.processor';

/** The consumer's settings its processor reads: the lock duration. */
const WORKER_SETTINGS = { jobLockMs: 30000 } as Settings;

function world() {
  const fired: string[] = [];
  const fireRoutine = {
    execute: (routineId: string) => (fired.push(routineId), Promise.resolve()),
  } as unknown as FireRoutine;
  return {
    processor: new RoutineFiringProcessor(WORKER_SETTINGS, new FireRoutineJobHandler(fireRoutine)),
    fired,
  };
}

describe('RoutineFiringProcessor', () => {
  it(`fires the routine of a "${ROUTINE_FIRING_JOB}" job`, async () => {
    const { processor, fired } = world();
    await processor.process(memoryJob(ROUTINE_FIRING_JOB, { routineId: 'r1' }, { timestamp: 1 }).job);
    expect(fired).toEqual(['r1']);
  });

  it('fails a job of a name it does not know, firing nothing', async () => {
    const { processor, fired } = world();
    await expect(processor.process(memoryJob('fire', { routineId: 'r1' }).job)).rejects.toThrow(
      new UnknownJobError('routine-firing', 'fire', [ROUTINE_FIRING_JOB]),
    );
    expect(fired).toEqual([]);
  });
});
