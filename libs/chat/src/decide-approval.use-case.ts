import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  approvalQuestion,
  ConflictError,
  DecideApprovalDto,
  MessageResponse,
  NotFoundError,
  toMessageResponse,
} from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import {
  AgentRepository,
  MessageRepository,
  ThreadRepository,
  ToolApprovalRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { threadScope } from './chat.rules';

export const MESSAGE_NOT_FOUND = 'Message not found';
export const CALL_NOT_WAITING = 'Tool call is not waiting for a decision';
export const APPROVAL_EXPIRED = 'Approval expired';

interface DecideApprovalInput {
  messageId: string;
  body: DecideApprovalDto;
  /** The end user named in the query (an end-user token's own); with the body's, both must be the owner. */
  userId?: string;
}

/**
 * POST /chat/messages/{message_id}/approvals (CONTRACTS §19): records a person's decision on a tool call that
 * waits. When it was the last undecided call of the step, the reply is running again and its run is enqueued:
 * any worker resumes it from its stored steps. A crash between the commit and the enqueue leaves a running
 * reply without a job, which the worker's sweep re-enqueues. A decision after the call's deadline is 409 `Approval
 * expired` (CONTRACTS §21): the call is denied as timed out, committed as any decision, and never runs. Every
 * protocol that decides approvals (this route, the AI SDK's approval responses) comes through here.
 */
@Injectable()
export class DecideApproval {
  private readonly logger = new Logger(DecideApproval.name);

  constructor(
    private readonly db: DataSource,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agents: AgentRepository,
    private readonly approvals: ToolApprovalRepository,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async execute(caller: Caller, { messageId, body, userId }: DecideApprovalInput): Promise<MessageResponse> {
    const scope = threadScope(caller, body.user_id, userId);
    const visible = await this.messages.findVisibleState(scope, messageId);
    const message = visible && (await this.messages.find(scope, visible.id));
    if (!message) throw new NotFoundError(MESSAGE_NOT_FOUND);
    const { reply, agent, outcome } = await this.db.transaction(async (tx) => {
      // The thread's lock orders the decision with a cancel, an archive or an interrupt of the same reply.
      const thread = await this.threads.lockVisible(tx, scope, message.threadId);
      if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(MESSAGE_NOT_FOUND);
      const decided = await this.approvals.decide(
        tx,
        scope,
        message.id,
        body.call_id,
        body.decision,
        body.reason ?? null,
        (waiting) => waiting.map(approvalQuestion),
      );
      if (decided === 'not_waiting') throw new ConflictError(CALL_NOT_WAITING);
      const reply = (await this.messages.find(scope, message.id, tx))!;
      const [agent] = reply.agentId ? await this.agents.findMany(scope.orgId, [reply.agentId], tx) : [];
      return { reply, agent, outcome: decided };
    });
    // Also when the decision came too late: the call's denial may have been the step's last decision.
    if (outcome.stillWaiting.length === 0) {
      const job = { messageId: reply.id, threadId: reply.threadId, requestId: caller.requestId };
      await this.agentRuns.enqueueAgain(job).catch((error: unknown) => {
        this.logger.error(
          { err: error, ...job },
          'decision stored but run not enqueued; the sweep will enqueue it',
        );
      });
    }
    if (outcome.expired) throw new ConflictError(APPROVAL_EXPIRED);
    return toMessageResponse(reply, agent);
  }
}
