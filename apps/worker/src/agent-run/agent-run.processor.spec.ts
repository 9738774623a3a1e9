import { Settings } from '@app/config';
import { RunAgentReply, RunReplyInput } from '@app/agent';
import { AgentRunJob } from '@app/contracts';
import { ToolApprovalRepository } from '@app/persistence';
import { AGENT_RUN_JOB, AgentRunQueue, APPROVAL_DEADLINE_JOB } from '@app/queues';
import { UnknownJobError } from '../jobs/job-handlers';
import { memoryJob } from '../jobs/testing/memory-job';
import { AgentRunProcessor } from './agent-run.processor';
import { ApprovalDeadlineJobHandler } from './approval-deadline.job-handler';
import { DelayedReplies } from './delayed-replies';
import { RunReplyJobHandler } from './run-reply.job-handler';

/** The consumer's settings its processor reads: the lock duration. */
const WORKER_SETTINGS = { jobLockMs: 30000 } as Settings;

/** The `agent-run` consumer with its real handlers over in-memory collaborators: what ran, what was enqueued. */
function world() {
  const ran: string[] = [];
  const enqueuedAgain: string[] = [];
  const runAgentReply = {
    execute: (input: RunReplyInput) => (ran.push(input.messageId), Promise.resolve('done')),
  } as unknown as RunAgentReply;
  const approvals = { timedOut: () => Promise.resolve(true) } as unknown as ToolApprovalRepository;
  const agentRuns = {
    enqueueAgain: (job: AgentRunJob) => (enqueuedAgain.push(job.messageId), Promise.resolve()),
  } as unknown as AgentRunQueue;
  const processor = new AgentRunProcessor(
    WORKER_SETTINGS,
    new RunReplyJobHandler(runAgentReply, {} as DelayedReplies),
    new ApprovalDeadlineJobHandler(approvals, agentRuns),
  );
  return { processor, ran, enqueuedAgain };
}

const job = (name: string) => memoryJob(name, { messageId: 'reply-1', threadId: 'thread-1' }).job;

describe('AgentRunProcessor', () => {
  it(`runs the reply of a "${AGENT_RUN_JOB}" job`, async () => {
    const { processor, ran, enqueuedAgain } = world();
    await processor.process(job(AGENT_RUN_JOB));
    expect(ran).toEqual(['reply-1']);
    expect(enqueuedAgain).toEqual([]);
  });

  it(`runs no reply for an "${APPROVAL_DEADLINE_JOB}" job: it enqueues the reply's run again`, async () => {
    const { processor, ran, enqueuedAgain } = world();
    await processor.process(job(APPROVAL_DEADLINE_JOB));
    expect(ran).toEqual([]);
    expect(enqueuedAgain).toEqual(['reply-1']);
  });

  it('fails a job of a name it does not know, rather than running it as a reply', async () => {
    const { processor, ran, enqueuedAgain } = world();
    await expect(processor.process(job('run-agent'))).rejects.toThrow(
      new UnknownJobError('agent-run', 'run-agent', [AGENT_RUN_JOB, APPROVAL_DEADLINE_JOB]),
    );
    expect(ran).toEqual([]);
    expect(enqueuedAgain).toEqual([]);
  });
});
