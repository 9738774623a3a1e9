import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AgentRunJob, QUEUE } from '@app/contracts';
import { TracedJobData, withTraceContext } from './job-trace-context';

export const AGENT_RUN_JOB = 'run-reply';

/**
 * Enqueues agent runs. The job id is the reply's message id: adding the same reply twice (a retried request,
 * the sweep of forgotten replies) is a no-op while the job exists. Jobs carry ids only, and the trace context.
 */
@Injectable()
export class AgentRunQueue {
  constructor(@InjectQueue(QUEUE.agentRun) private readonly queue: Queue<AgentRunJob & TracedJobData>) {}

  async enqueue(job: AgentRunJob): Promise<void> {
    await this.queue.add(AGENT_RUN_JOB, withTraceContext(job), {
      jobId: job.messageId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 3600, count: 10000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }
}
