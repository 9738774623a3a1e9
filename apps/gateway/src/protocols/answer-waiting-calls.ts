import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApprovalDecision, ConflictError } from '@app/contracts';
import { APPROVAL_EXPIRED, CALL_NOT_WAITING, DecideApproval } from '@app/chat';
import { Caller } from '@app/identity';
import { ChatOwner, MessageRepository } from '@app/persistence';

/** A person's answer to a call a reply waits on, as a protocol's next request carries it. */
export interface CallAnswer {
  callId: string;
  decision: ApprovalDecision;
  reason: string | null;
}

/**
 * Answers the calls a thread's waiting reply asked about, for the protocols whose next request carries the
 * answers (the AI SDK's approval responses, AG-UI's `resume`), as POST /chat/messages/{id}/approvals would
 * (CONTRACTS §19): a call decided already (the answer sent again) is passed over; one past its deadline is 409
 * `Approval expired`, the call denied (CONTRACTS §21). Answers the reply and the seq of its last
 * `approval.requested` line: the client holds the lines up to it, and the continuation streams after it.
 */
@Injectable()
export class AnswerWaitingCalls {
  constructor(
    private readonly db: DataSource,
    private readonly messages: MessageRepository,
    private readonly decideApproval: DecideApproval,
  ) {}

  async execute(
    caller: Caller,
    owner: ChatOwner,
    threadId: string,
    answers: readonly CallAnswer[],
  ): Promise<{ replyId: string; lastRequestSeq: number | null }> {
    const live = await this.messages.liveReplies(owner, threadId);
    const waiting = live.find((reply) => reply.status === 'requires_action');
    if (!waiting) throw new ConflictError(CALL_NOT_WAITING);
    for (const answer of answers) {
      await this.decideApproval
        .execute(caller, {
          messageId: waiting.id,
          body: { call_id: answer.callId, decision: answer.decision, reason: answer.reason },
          userId: owner.userId,
        })
        .catch((error: unknown) => {
          if (!(error instanceof ConflictError) || error.message === APPROVAL_EXPIRED) throw error;
        });
    }
    const events = (await this.messages.find(owner, waiting.id))?.events ?? [];
    const requested = events
      .filter((line) => line.type === 'approval.requested')
      .map((line) => Number(line.seq));
    return { replyId: waiting.id, lastRequestSeq: requested.length > 0 ? Math.max(...requested) : null };
  }
}
