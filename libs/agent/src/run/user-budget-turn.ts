import { Injectable, Logger } from '@nestjs/common';
import { GateQuery, ParkedReply, RunGate, RunRepository } from '@app/persistence';
import { RunScheduler } from './run-scheduler';
import { ReplyRun } from './run.types';

/**
 * The run parked its reply for its end user's spending turn (or found it no longer running): it ends here, its
 * worker slot freed, and the reply's job waits as a delayed one until the turn is handed to it.
 */
export class ReplyParkedError extends Error {
  constructor() {
    super("parked for its end user's spending turn");
  }
}

/**
 * The spending turn of a budgeted end user (RunRepository.takeUserBudgetTurn): every model call a run makes for
 * the user (each step's, and a thread summary's) runs one at a time, whatever mix of pending, waiting and running
 * replies the user has, and each is decided on a gate read after the turn was taken, which holds everything the
 * calls before it spent, so the budget is crossed by one call at most (CONTRACTS §21). Serialized per user rather
 * than reserved: a call's cost is known only after it returns. The turn lasts one call, given back in the
 * statement that stores what it spent (a step, a summary) or when the reply stops running: a reply waiting for a
 * person holds none. A run that finds it held parks its reply rather than wait (the rule's third part,
 * persistence's sql/run-scheduling.sql.ts); whatever gives the turn back hands it to the oldest parked reply, which
 * is woken here.
 */
@Injectable()
export class UserBudgetTurn {
  private readonly logger = new Logger(UserBudgetTurn.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly scheduler: RunScheduler,
  ) {}

  /**
   * Takes the turn and answers the gate read with it. When another reply holds it, parks this one with what it
   * streamed so far and throws ReplyParkedError, unless the run was stopped meanwhile (its caller then ends it).
   */
  async take(
    { reply, thread, state, signal }: Pick<ReplyRun, 'reply' | 'thread' | 'state' | 'signal'>,
    query: GateQuery,
  ): Promise<RunGate> {
    if (!(await this.runs.takeUserBudgetTurn(reply.id, thread.id)) && !signal.aborted) {
      // A run another worker took over writes nothing into the row.
      await state.assertOwner();
      const streamed = { content: state.content, events: state.events, deltaLengths: state.deltaLengths };
      if ((await this.runs.parkForUserBudgetTurn(reply.id, thread.id, streamed)) !== 'taken')
        throw new ReplyParkedError();
    }
    return this.runs.gate(query);
  }

  /**
   * Gives the turn back when the call it was taken for stored nothing (it failed, or was not made), or when the
   * reply ended holding it; the parked reply it goes to is woken.
   */
  async giveBack(messageId: string): Promise<void> {
    await this.wake(await this.runs.giveBackUserBudgetTurn(messageId));
  }

  /**
   * Starts the parked reply a give-back handed the turn to (nothing when null). A failure is only logged: the
   * reply's delayed job runs it within moments anyway.
   */
  async wake(parked: ParkedReply | null): Promise<void> {
    if (!parked) return;
    await this.scheduler.wake(parked.threadId, parked.id).catch((error: unknown) => {
      this.logger.warn(
        { err: error, messageId: parked.id },
        'parked reply not woken: its delayed job runs it',
      );
    });
  }
}
