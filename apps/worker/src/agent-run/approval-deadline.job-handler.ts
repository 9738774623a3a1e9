import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { AgentRunJob } from '@app/contracts';
import { ToolApprovalRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { JobHandler } from '../jobs/job-handlers';

/**
 * APPROVAL_DEADLINE_JOB, a reply's approval deadline come due: if it still waits on a call nobody decided, its
 * run is enqueued again under its own job id (so never beside a run of it already queued or running) and denies
 * that call. Decided, cancelled or ended meanwhile: nothing. The sweep of forgotten replies does the same later
 * if this job is lost with Redis. It is no run itself, so it opens no trace of its own.
 */
@Injectable()
export class ApprovalDeadlineJobHandler implements JobHandler<AgentRunJob> {
  constructor(
    private readonly approvals: ToolApprovalRepository,
    private readonly agentRuns: AgentRunQueue,
  ) {}

  async handle({ data }: Job<AgentRunJob>): Promise<void> {
    if (await this.approvals.timedOut(data.messageId)) {
      await this.agentRuns.enqueueAgain({ messageId: data.messageId, threadId: data.threadId });
    }
  }
}
