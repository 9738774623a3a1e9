import { Injectable } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { RunAgentReply, RunHandedBackError, RunReplacedError } from '@app/agent';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { processInJobTrace, TracedJobData } from '@app/queues';
import { JobHandler } from '../jobs/job-handlers';
import { DelayedReplies } from './delayed-replies';

/**
 * AGENT_RUN_JOB, a reply's run. A reply that must wait for an earlier one of its thread goes back to the queue as
 * a delayed job, and so does one handed back by this worker as it stops. A run replaced by a newer execution of
 * its job leaves the job alone: its lock is the newer one's now. The run continues the trace of the request that
 * enqueued it.
 */
@Injectable()
export class RunReplyJobHandler implements JobHandler<AgentRunJob & TracedJobData> {
  constructor(
    private readonly runAgentReply: RunAgentReply,
    private readonly delayedReplies: DelayedReplies,
  ) {}

  handle(
    job: Job<AgentRunJob & TracedJobData>,
    token: string | undefined,
    replaced: AbortSignal,
  ): Promise<void> {
    return processInJobTrace(QUEUE.agentRun, job, async () => {
      const result = await this.runAgentReply
        .execute({
          messageId: job.data.messageId,
          requestId: job.data.requestId,
          finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
          enqueuedAt: job.attemptsStarted <= 1 ? job.timestamp : undefined,
          replaced,
        })
        .catch(async (error: unknown) => {
          if (!(error instanceof RunHandedBackError) || error instanceof RunReplacedError) throw error;
          // Back to the queue at once, without spending an attempt: another worker resumes it now rather than
          // after this one's lock expires.
          await job.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        });
      if (result === 'wait') await this.delayedReplies.defer(job, token);
    });
  }
}
