import { AgentRunJob } from '@app/contracts';
import { ToolApprovalRepository } from '@app/persistence';
import { AgentRunQueue, APPROVAL_DEADLINE_JOB } from '@app/queues';
import { memoryJob } from '../jobs/testing/memory-job';
import { ApprovalDeadlineJobHandler } from './approval-deadline.job-handler';

/** The handler over replies whose approval deadline has passed (`timedOut`), recording what was enqueued again. */
function world(timedOut: string[]) {
  const enqueuedAgain: AgentRunJob[] = [];
  const approvals = {
    timedOut: (messageId: string) => Promise.resolve(timedOut.includes(messageId)),
  } as unknown as ToolApprovalRepository;
  const agentRuns = {
    enqueueAgain: (job: AgentRunJob) => (enqueuedAgain.push(job), Promise.resolve()),
  } as unknown as AgentRunQueue;
  return { handler: new ApprovalDeadlineJobHandler(approvals, agentRuns), enqueuedAgain };
}

const deadlineOf = (messageId: string) =>
  memoryJob(APPROVAL_DEADLINE_JOB, { messageId, threadId: 'thread-1', requestId: 'req-1' }).job;

describe('ApprovalDeadlineJobHandler', () => {
  it('enqueues the run of a reply still waiting on an undecided call at its deadline', async () => {
    const { handler, enqueuedAgain } = world(['reply-1']);

    await handler.handle(deadlineOf('reply-1'));

    expect(enqueuedAgain).toEqual([{ messageId: 'reply-1', threadId: 'thread-1' }]);
  });

  it('enqueues nothing for a reply whose call was decided, or that was cancelled or ended, meanwhile', async () => {
    const { handler, enqueuedAgain } = world(['another-reply']);

    await handler.handle(deadlineOf('reply-1'));

    expect(enqueuedAgain).toEqual([]);
  });
});
