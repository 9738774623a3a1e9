import { RoutineFiringJob } from '@app/contracts';
import { FireRoutine } from '@app/routines';
import { ROUTINE_FIRING_JOB } from '@app/queues';
import { memoryJob, MemoryJobOptions } from '../jobs/testing/memory-job';
import { FireRoutineJobHandler } from './fire-routine.job-handler';

/** The handler over a FireRoutine that records each firing as `<routine id> <slot>`. */
function world() {
  const fired: string[] = [];
  const fireRoutine = {
    execute: (routineId: string, slot: Date) => (
      fired.push(`${routineId} ${slot.toISOString()}`),
      Promise.resolve()
    ),
  } as unknown as FireRoutine;
  return { handler: new FireRoutineJobHandler(fireRoutine), fired };
}

const firing = (data: RoutineFiringJob, options: MemoryJobOptions) =>
  memoryJob(ROUTINE_FIRING_JOB, data, options).job;
const NINE = Date.parse('2026-11-29T09:00:00Z');

describe('FireRoutineJobHandler', () => {
  it("fires a scheduler's job at the slot it was produced for, however late it runs", async () => {
    const { handler, fired } = world();
    await handler.handle(firing({ routineId: 'r1' }, { prevMillis: NINE, timestamp: NINE + 90_000 }));
    expect(fired).toEqual(['r1 2026-11-29T09:00:00.000Z']);
  });

  it('fires a caught-up missed firing at the slot its data names', async () => {
    const { handler, fired } = world();
    await handler.handle(
      firing({ routineId: 'r1', slot: '2026-11-29T08:00:00.000Z' }, { timestamp: NINE + 90_000 }),
    );
    expect(fired).toEqual(['r1 2026-11-29T08:00:00.000Z']);
  });

  it('fires a job that names no slot at the time it was added', async () => {
    const { handler, fired } = world();
    await handler.handle(firing({ routineId: 'r1' }, { timestamp: NINE }));
    expect(fired).toEqual(['r1 2026-11-29T09:00:00.000Z']);
  });
});
