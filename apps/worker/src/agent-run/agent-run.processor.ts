import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { RunAgentReply, RunHandedBackError } from '@app/agent';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { APPROVAL_DEADLINE_JOB, processInJobTrace, TracedJobData } from '@app/queues';
import { ApprovalDeadlines } from './approval-deadlines';
import { DelayedReplies } from './delayed-replies';

/**
 * Consumes `agent-run` jobs (declared a @Processor in AgentRunModule.forRoot, with the worker settings). A reply
 * that must wait for an earlier one of its thread goes back to the queue as a delayed job, and so does one handed
 * back by this worker as it stops. The run continues the trace of the request that enqueued it. An approval's
 * deadline on the same queue is no run: it enqueues the reply's run again if the call still waits.
 */
@Injectable()
export class AgentRunProcessor extends WorkerHost {
  constructor(
    private readonly runAgentReply: RunAgentReply,
    private readonly delayedReplies: DelayedReplies,
    private readonly approvalDeadlines: ApprovalDeadlines,
  ) {
    super();
  }

  process(job: Job<AgentRunJob & TracedJobData>, token?: string): Promise<void> {
    if (job.name === APPROVAL_DEADLINE_JOB) return this.approvalDeadlines.fire(job.data);
    return processInJobTrace(QUEUE.agentRun, job, async () => {
      const result = await this.runAgentReply
        .execute({
          messageId: job.data.messageId,
          requestId: job.data.requestId,
          finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
          enqueuedAt: job.timestamp,
        })
        .catch(async (error: unknown) => {
          if (!(error instanceof RunHandedBackError)) throw error;
          // Back to the queue at once, without spending an attempt: another worker resumes it now rather than
          // after this one's lock expires.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        });
      if (result === 'wait') await this.delayedReplies.defer(job, token);
    });
  }
}
