import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { ErasedReply } from '@app/persistence';
import { approvalDeadlineJobId } from '@app/queues';
import { REDIS } from '@app/redis';
import { runEventKeys } from '@app/run-events';

/** Entries of the queue's event log read per call while looking for erased replies' jobs. */
const EVENTS_PAGE = 1000;
/** How long a job just finished by its run may stay locked before it can be removed. */
const LOCKED_JOB_RETRIES = 20;
const LOCKED_JOB_WAIT_MS = 100;

/**
 * Everything Redis holds that names erased replies (CONTRACTS §21: no Redis key or value names them afterwards):
 * each reply's event log and owner token, its agent-run job (the job id is the reply's id) and approval-deadline
 * jobs, and then the entries of the agent-run queue's event log about those jobs (a removal itself adds one, so
 * that log is cleaned last). The event log is bounded by BullMQ's trimming, so its walk costs the same whatever
 * the organization's history.
 */
@Injectable()
export class ReplyTraces {
  constructor(
    private readonly settings: Settings,
    @Inject(REDIS) private readonly redis: Redis,
    @InjectQueue(QUEUE.agentRun) private readonly agentRuns: Queue,
  ) {}

  /** The replies' event logs: a run that claims one afterwards finds its reply gone and lets go of it. */
  async forgetLogs(replyIds: string[]): Promise<void> {
    await Promise.all(
      replyIds.map((id) => {
        const keys = runEventKeys(this.settings.redisPrefix, id);
        return this.redis.del(keys.stream, keys.owner);
      }),
    );
  }

  /** Logs, jobs and queue events of the replies, which no run holds any more (EraseUser waits for that). */
  async forget(replies: ErasedReply[]): Promise<void> {
    if (replies.length === 0) return;
    await this.forgetLogs(replies.map((reply) => reply.id));
    const jobIds = replies.flatMap((reply) => [
      reply.id,
      ...reply.deadlines.map((at) => approvalDeadlineJobId(reply.id, at)),
    ]);
    for (const jobId of jobIds) await this.removeJob(jobId);
    await this.forgetQueueEvents(replies.map((reply) => reply.id));
  }

  /** A job its run has just finished may hold its lock a moment longer: removal waits for it, briefly. */
  private async removeJob(jobId: string): Promise<void> {
    for (let attempt = 0; attempt < LOCKED_JOB_RETRIES; attempt += 1) {
      const job = await this.agentRuns.getJob(jobId);
      if (!job) return;
      // 0: still locked by the worker that is finishing it.
      if ((await this.agentRuns.remove(jobId).catch(() => 1)) === 1) return;
      await new Promise((resolve) => setTimeout(resolve, LOCKED_JOB_WAIT_MS));
    }
  }

  private async forgetQueueEvents(replyIds: string[]): Promise<void> {
    // The queue's own connection: on a cluster its keys are hash-tagged to one slot, which it knows.
    const client = (await this.agentRuns.client) as unknown as Redis;
    const stream = this.agentRuns.keys.events;
    const names = (fields: string[]) => fields.some((value) => replyIds.some((id) => value.includes(id)));
    for (let start = '-'; ;) {
      const entries = await client.xrange(stream, start, '+', 'COUNT', EVENTS_PAGE);
      const naming = entries.filter(([, fields]) => names(fields)).map(([id]) => id);
      if (naming.length > 0) await client.xdel(stream, ...naming);
      if (entries.length < EVENTS_PAGE) return;
      start = `(${entries[entries.length - 1][0]}`;
    }
  }
}
