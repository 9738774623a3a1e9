import { nextLiveReplySql } from '../run-scheduling.sql';

/**
 * The thread's next live reply once the reply closed in `closed` ended: the one to run next. In the statement's
 * snapshot the closed reply is still live, so it is left out by id.
 */
export const nextLiveReplyAfterSql = (closed: string): string =>
  nextLiveReplySql(`${closed}.thread_id`, `${closed}.id`);
