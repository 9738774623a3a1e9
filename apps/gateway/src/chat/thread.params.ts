import { IsUUID } from 'class-validator';
import { ThreadOwnerQuery } from '@app/contracts';

/** `{thread_id}` of the thread routes: a UUID, else 422 at ["path", "thread_id"]. */
export class ThreadParams {
  @IsUUID()
  thread_id: string;
}

/** The thread a route names, as the chat use cases take it: its id from the path, its end user from the query. */
export const threadOf = (params: ThreadParams, query: ThreadOwnerQuery) => ({
  threadId: params.thread_id,
  userId: query.user_id,
});
