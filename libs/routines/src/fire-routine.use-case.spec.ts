import { AGENT_NOT_FOUND, StartThread, ThreadStart } from '@app/chat';
import { InvalidInputError, NotFoundError, StartChatDto } from '@app/contracts';
import { ApiKeyRepository, RoutineEntity, RoutineRepository } from '@app/persistence';
import { RoutineSchedules } from '@app/queues';
import { FireRoutine, firingThreadId } from './fire-routine.use-case';
import { RoutineMetrics } from './routine-metrics';
import { slotLabel } from './routine-schedule';

type Caller = Parameters<StartThread['execute']>[0];

const slot = new Date('2026-03-02T09:00:00Z');
const routine = Object.assign(new RoutineEntity(), {
  id: '0190a5e4-0000-7000-8000-0000000000aa',
  orgId: 'o',
  keyId: 'k',
  userId: 'alice',
  agentId: 'a',
  name: 'Daily digest',
  schedule: '0 9 * * *',
  timezone: 'Europe/Paris',
  message: { content: 'What happened yesterday?' },
  options: { max_steps: 3 },
  active: true,
  nextRunAt: slot,
});

/** FireRoutine's collaborators in memory: what each was asked, and a StartThread that answers as told. */
function world(options: { routine?: RoutineEntity | null; revoked?: boolean; startFails?: unknown } = {}) {
  const calls: string[] = [];
  const started: { caller: Caller; input: StartChatDto; start: ThreadStart }[] = [];
  const fired: { threadId: string | null; at: Date }[] = [];
  const routines = {
    findById: () => Promise.resolve(options.routine === undefined ? routine : options.routine),
    recordFiring: (_id: string, firing: { threadId: string | null; at: Date }) => (
      fired.push(firing),
      Promise.resolve()
    ),
    deactivate: (_id: string, reason: string) => (calls.push(`deactivate: ${reason}`), Promise.resolve()),
  };
  const keys = {
    findById: () => Promise.resolve({ id: 'k', revokedAt: options.revoked ? new Date() : null }),
  };
  const schedules = { remove: (id: string) => (calls.push(`remove scheduler ${id}`), Promise.resolve()) };
  const startThread = {
    execute: (caller: Caller, input: StartChatDto, start: ThreadStart) => {
      started.push({ caller, input, start });
      return options.startFails
        ? Promise.reject(options.startFails)
        : Promise.resolve({ id: start.routine?.threadId });
    },
  };
  const metrics = new RoutineMetrics();
  const useCase = new FireRoutine(
    routines as unknown as RoutineRepository,
    keys as unknown as ApiKeyRepository,
    schedules as unknown as RoutineSchedules,
    startThread as unknown as StartThread,
    metrics,
  );
  /** How many firings ended with `outcome` since the world was made (the counter is process-wide). */
  const countOf = async (outcome: string) =>
    (await metrics.firings.get()).values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  return { useCase, calls, started, fired, countOf };
}

describe('FireRoutine', () => {
  it("starts the routine's thread as POST /chat does, for its owner and key, under an id derived from the slot", async () => {
    const { useCase, started, fired, countOf } = world();
    const before = await countOf('fired');

    await useCase.execute(routine.id, slot);

    expect(started).toEqual([
      {
        caller: { orgId: 'o', keyId: 'k', requestId: `routine-${routine.id}-${slot.getTime()}` },
        input: { message: routine.message, options: { agent_id: 'a', user_id: 'alice', max_steps: 3 } },
        start: {
          routine: {
            threadId: firingThreadId(routine.id, slot),
            name: `Daily digest ${slotLabel(slot, 'Europe/Paris')}`,
          },
        },
      },
    ]);
    expect(fired).toMatchObject([{ at: slot, threadId: firingThreadId(routine.id, slot) }]);
    expect(await countOf('fired')).toBe(before + 1);
  });

  it('names one thread per routine and slot, so a firing delivered twice stores one and counts the second a duplicate', async () => {
    expect(firingThreadId(routine.id, slot)).toBe(firingThreadId(routine.id, new Date(slot)));
    expect(firingThreadId(routine.id, slot)).not.toBe(
      firingThreadId(routine.id, new Date(slot.getTime() + 60_000)),
    );
    const { useCase, calls, fired, countOf } = world({ startFails: { driverError: { code: '23505' } } });
    const before = await countOf('duplicate');

    await useCase.execute(routine.id, slot);

    expect(await countOf('duplicate')).toBe(before + 1);
    expect(fired).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('deactivates a routine that can no longer fire, saying why, and removes its scheduler', async () => {
    const cases: [Parameters<typeof world>[0], string][] = [
      [{ revoked: true }, 'the API key that created it was revoked'],
      [{ startFails: new NotFoundError(AGENT_NOT_FOUND) }, 'its agent was archived'],
      [
        { startFails: new InvalidInputError([{ loc: ['file_ids', 0], msg: 'gone', type: 'value_error' }]) },
        'its message can no longer be sent: file_ids.0: gone',
      ],
    ];
    for (const [options, reason] of cases) {
      const { useCase, calls, fired } = world(options);
      await useCase.execute(routine.id, slot);
      expect(calls).toEqual([`deactivate: ${reason}`, `remove scheduler ${routine.id}`]);
      expect(fired).toEqual([]);
    }
  });

  it("skips a routine switched off, and removes the scheduler of one that is gone; another failure is the job's", async () => {
    const inactive = world({ routine: Object.assign(new RoutineEntity(), { ...routine, active: false }) });
    await inactive.useCase.execute(routine.id, slot);
    expect([inactive.started, inactive.calls]).toEqual([[], []]);

    const gone = world({ routine: null });
    await gone.useCase.execute(routine.id, slot);
    expect(gone.started).toEqual([]);
    expect(gone.calls).toEqual([`remove scheduler ${routine.id}`]);

    const failing = world({ startFails: new Error('PostgreSQL is down') });
    await expect(failing.useCase.execute(routine.id, slot)).rejects.toThrow('PostgreSQL is down');
    expect(failing.calls).toEqual([]);
  });
});
