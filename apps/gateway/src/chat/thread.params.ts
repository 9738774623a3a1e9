import { IsUUID } from 'class-validator';

/** `{thread_id}` of the thread routes: a UUID, else 422 at ["path", "thread_id"]. */
export class ThreadParams {
  @IsUUID()
  thread_id: string;
}
