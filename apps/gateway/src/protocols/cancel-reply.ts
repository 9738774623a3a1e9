import { Injectable, Logger } from '@nestjs/common';
import { Caller } from '@app/identity';
import { StopThreadReplies } from '@app/chat';
import { VisibleReply } from './visible-replies';

/**
 * Stops one live reply, as an interrupting follow-up does (CONTRACTS §12): a pending one (or one waiting for an
 * approval) is closed here, a running one is its worker's to end, told after the commit. A protocol's cancel
 * (Responses, A2A) then reads the reply's end from its stream.
 */
@Injectable()
export class CancelReply {
  private readonly logger = new Logger(CancelReply.name);

  constructor(private readonly stopper: StopThreadReplies) {}

  /** `notFound`: the protocol's detail should the thread be gone meanwhile. */
  async execute(caller: Caller, { reply, thread }: VisibleReply, notFound: string): Promise<void> {
    if (!reply.live) return;
    await this.stopper.stop(
      { threadId: thread.id, messageId: reply.id, scope: { orgId: caller.orgId }, notFound },
      this.logger,
    );
  }
}
