import { WorkerHost } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { RunAgentReply, RunScheduler } from '@app/agent';
import { AgentRunJob } from '@app/contracts';

/**
 * Consumes `agent-run` jobs (declared a @Processor in AgentRunModule.forRoot, with the worker settings). A reply
 * that must wait for an earlier one of its thread goes back to the queue as a delayed job.
 */
@Injectable()
export class AgentRunProcessor extends WorkerHost {
  constructor(
    private readonly runAgentReply: RunAgentReply,
    private readonly scheduler: RunScheduler,
  ) {
    super();
  }

  async process(job: Job<AgentRunJob>, token?: string): Promise<void> {
    const result = await this.runAgentReply.execute({
      messageId: job.data.messageId,
      requestId: job.data.requestId,
      finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      enqueuedAt: job.timestamp,
    });
    if (result === 'wait') await this.scheduler.defer(job, token);
  }
}
