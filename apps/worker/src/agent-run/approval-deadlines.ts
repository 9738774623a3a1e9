import { Injectable } from '@nestjs/common';
import { AgentRunJob } from '@app/contracts';
import { ToolApprovalRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';

/**
 * A reply's approval deadline come due (APPROVAL_DEADLINE_JOB): if it still waits on a call nobody decided, its
 * run is enqueued again under its own job id (so never beside a run of it already queued or running) and denies
 * that call. Decided, cancelled or ended meanwhile: nothing. The sweep of forgotten replies does the same later
 * if this job is lost with Redis.
 */
@Injectable()
export class ApprovalDeadlines {
  constructor(
    private readonly approvals: ToolApprovalRepository,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async fire(job: AgentRunJob): Promise<void> {
    if (await this.approvals.timedOut(job.messageId)) {
      await this.agentRuns.enqueueAgain({ messageId: job.messageId, threadId: job.threadId });
    }
  }
}
