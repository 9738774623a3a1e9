import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { GateQuery, RunGate, RunRepository } from '@app/persistence';
import { ReplyRun } from './run.types';

/** How often a run waiting for its end user's spending turn asks again. */
const USER_BUDGET_TURN_POLL_MS = 200;

/**
 * The spending turn of a budgeted end user (RunRepository.takeUserBudgetTurn): every model call a run makes for
 * the user (each step's, and a thread summary's) runs one at a time, whatever mix of pending, waiting and running
 * replies the user has, and each is decided on a gate read after the turn was taken, which holds everything the
 * calls before it spent, so the budget is crossed by one call at most (CONTRACTS §21). Serialized per user rather
 * than reserved: a call's cost is known only after it returns. The turn lasts one call, given back in the
 * statement that stores what it spent (a step, a summary) or when the reply stops running: a reply waiting for a
 * person holds none.
 */
@Injectable()
export class UserBudgetTurn {
  constructor(private readonly runs: RunRepository) {}

  /** Waits for the turn; answers the gate read with it (or the last one read while waiting, when the run stopped). */
  async take(
    { reply, thread, signal }: Pick<ReplyRun, 'reply' | 'thread' | 'signal'>,
    query: GateQuery,
  ): Promise<RunGate> {
    for (;;) {
      const taken = await this.runs.takeUserBudgetTurn(reply.id, thread.id);
      const gate = await this.runs.gate(query);
      if (taken || signal.aborted || gate.archived) return gate;
      await sleep(USER_BUDGET_TURN_POLL_MS);
    }
  }

  /** Gives the turn back when the call it was taken for stored nothing (it failed, or was not made). */
  async giveBack(messageId: string): Promise<void> {
    await this.runs.giveBackUserBudgetTurn(messageId);
  }
}
