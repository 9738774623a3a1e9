import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { AGENT_RUN_JOB, APPROVAL_DEADLINE_JOB } from '@app/queues';
import { JobHandlersHost } from '../jobs/job-handlers';
import { ApprovalDeadlineJobHandler } from './approval-deadline.job-handler';
import { RunReplyJobHandler } from './run-reply.job-handler';

/**
 * Consumes `agent-run` jobs (declared a @Processor in AgentRunModule.forRoot, with the worker settings): a reply's
 * run, or an approval's deadline on the same queue, each to its name's handler.
 */
@Injectable()
export class AgentRunProcessor extends JobHandlersHost<typeof AGENT_RUN_JOB | typeof APPROVAL_DEADLINE_JOB> {
  constructor(
    settings: Settings,
    runReply: RunReplyJobHandler,
    approvalDeadline: ApprovalDeadlineJobHandler,
  ) {
    super(
      QUEUE.agentRun,
      {
        [AGENT_RUN_JOB]: runReply,
        [APPROVAL_DEADLINE_JOB]: approvalDeadline,
      },
      settings.jobLockMs,
    );
  }
}
