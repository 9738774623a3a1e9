import { Injectable, Logger } from '@nestjs/common';
import { Caller, mayUseAgent } from '@app/identity';
import { ThreadRepository } from '@app/persistence';
import { THREAD_NOT_FOUND, threadScope } from './chat.rules';
import { StopThreadReplies } from './stop-thread-replies';

interface ArchiveThreadInput {
  threadId: string;
  userId?: string;
}

/**
 * DELETE /chat/{thread_id}: archives the thread (404 to every call from now on) and stops its replies.
 * Replies that never started are closed here as cancelled; a running one belongs to its worker, which is
 * told after the commit and marks it cancelled itself.
 */
@Injectable()
export class ArchiveThread {
  private readonly logger = new Logger(ArchiveThread.name);

  constructor(
    private readonly threads: ThreadRepository,
    private readonly stopper: StopThreadReplies,
  ) {}

  async execute(caller: Caller, input: ArchiveThreadInput): Promise<void> {
    const scope = threadScope(caller, input.userId);
    await this.stopper.stop(
      {
        threadId: input.threadId,
        scope,
        notFound: THREAD_NOT_FOUND,
        visible: (thread) => mayUseAgent(caller, thread.agentId),
        alongside: (tx, thread) => this.threads.archive(tx, scope, thread.id),
      },
      this.logger,
    );
  }
}
