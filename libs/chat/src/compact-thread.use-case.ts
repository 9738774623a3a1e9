import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { ThreadSummaryRepository } from '@app/persistence';
import { THREAD_NOT_FOUND, threadScope } from './chat.rules';

interface CompactThreadInput {
  threadId: string;
  userId?: string;
}

/**
 * POST /chat/{thread_id}/compact (CONTRACTS §19): the thread's next run summarizes its older messages, whatever
 * their size, before it asks the model; nothing is deleted. Answered at once: the summary is the run's work.
 */
@Injectable()
export class CompactThread {
  constructor(private readonly summaries: ThreadSummaryRepository) {}

  async execute(caller: Caller, input: CompactThreadInput): Promise<void> {
    if (!(await this.summaries.request(threadScope(caller, input.userId), input.threadId)))
      throw new NotFoundError(THREAD_NOT_FOUND);
  }
}
