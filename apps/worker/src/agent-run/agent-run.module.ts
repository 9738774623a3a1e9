import { DynamicModule, Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { DiscoveryModule } from '@nestjs/core';
import { AgentModule, ModelAttachments, ReplyWaker } from '@app/agent';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { FileAttachments, FileAttachmentsModule } from '@app/files';
import { declareConsumer } from '../jobs/declare-consumer';
import { AgentRunProcessor } from './agent-run.processor';
import { ApprovalDeadlineJobHandler } from './approval-deadline.job-handler';
import { DelayedReplies } from './delayed-replies';
import { EvalRunner } from './eval-runner';
import { FoldTokenUsage } from './fold-token-usage';
import { HandBackOnStop } from './hand-back-on-stop';
import { ReportRunStartWaits } from './report-run-start-waits';
import { RunCancellationListener } from './run-cancellation.listener';
import { RunReplyJobHandler } from './run-reply.job-handler';
import { SweepPendingReplies } from './sweep-pending-replies';

/**
 * Agent runs on this worker: the `agent-run` consumer, the cancellation listener, the sweep, the hand-back on stop,
 * the fold of ended replies' tokens into the counters, the evaluations whose items run as replies, and the runs'
 * start waits reported for the gateways' admission control.
 */
@Module({})
export class AgentRunModule {
  static forRoot(settings: Settings): DynamicModule {
    declareConsumer(AgentRunProcessor, QUEUE.agentRun, settings, {
      concurrency: settings.agentRunConcurrency,
      maxStalledCount: 3,
    });
    return {
      module: AgentRunModule,
      imports: [
        QueuesModule,
        AgentModule.forRoot({
          imports: [FileAttachmentsModule, QueuesModule],
          providers: [
            DelayedReplies,
            { provide: ReplyWaker, useExisting: DelayedReplies },
            { provide: ModelAttachments, useExisting: FileAttachments },
          ],
        }),
        DiscoveryModule,
      ],
      providers: [
        AgentRunProcessor,
        RunReplyJobHandler,
        ApprovalDeadlineJobHandler,
        RunCancellationListener,
        SweepPendingReplies,
        HandBackOnStop,
        FoldTokenUsage,
        EvalRunner,
        ReportRunStartWaits,
      ],
    };
  }
}
