import { giveBackUserBudgetTurnSql } from '../run-scheduling.sql';

/**
 * The end user's spending turn the reply closed in `closed` held, if any, given back and handed to the user's
 * oldest parked reply (parley_give_back_user_budget_turn): its one row, if any, is that reply, to be started at
 * once. It reads from `closed`, so it runs after the row is closed: the function's statements take snapshots of
 * their own, which see the closed row, and the budget row's lock orders it with a run parking meanwhile. A reply
 * that held no turn changes nothing (the budget rows are found by an index on the turn).
 */
export const handUserBudgetTurnOnSql = (closed: string): string =>
  `SELECT given.next_reply_id, given.next_thread_id FROM ${closed},
     LATERAL (${giveBackUserBudgetTurnSql(`${closed}.id`)}) given`;
