import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { cancelPendingReplies, closeCancelledStreams } from '@app/chat';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';
import { RESPONSE_NOT_FOUND, ResponseReplies } from './response-replies';
import { ResponseEvents } from './response-events';
import { ResponseObject } from './response-translation';

/**
 * POST /openai/v1/responses/{id}/cancel: stops a live reply, as an interrupting follow-up does (CONTRACTS §12):
 * a pending one is closed here, a running one is its worker's to end, told after the commit. Answers the
 * Response once the reply has ended (a worker stops between two steps at most); a finished one as it is.
 */
@Injectable()
export class CancelResponse {
  private readonly logger = new Logger(CancelResponse.name);

  constructor(
    private readonly db: DataSource,
    private readonly replies: ResponseReplies,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly cancellation: RunCancellation,
    private readonly events: ResponseEvents,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async execute(caller: Caller, responseId: string): Promise<ResponseObject> {
    const { reply, thread } = await this.replies.find(caller, responseId);
    if (reply.live) {
      const cancelled = await this.db.transaction(async (tx) => {
        const locked = await this.threads.lockVisible(tx, { orgId: caller.orgId }, thread.id);
        if (!locked) throw new NotFoundError(RESPONSE_NOT_FOUND);
        return cancelPendingReplies(tx, locked, this.messages, this.agents, reply.id);
      });
      await this.cancellation.requestCancel({ threadId: thread.id, messageId: reply.id });
      await closeCancelledStreams(this.agentRuns, this.logger, cancelled);
    }
    return this.events.final(caller, responseId);
  }
}
