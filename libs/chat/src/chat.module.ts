import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { FileAttachmentsModule } from '@app/files';
import { RunCancellation } from '@app/run-events';
import { ArchiveThread } from './archive-thread.use-case';
import { CompactThread } from './compact-thread.use-case';
import { DecideApproval } from './decide-approval.use-case';
import { EditMessage } from './edit-message.use-case';
import { ListBranches } from './list-branches.use-case';
import { RegenerateReply } from './regenerate-reply.use-case';
import { SetActiveBranch } from './set-active-branch.use-case';
import { GetThread } from './get-thread.use-case';
import { ListThreads } from './list-threads.use-case';
import { PostMessage } from './post-message.use-case';
import { StartThread } from './start-thread.use-case';
import { StopThreadReplies } from './stop-thread-replies';
import { ThreadReplies } from './thread-replies';
import { UpdateThread } from './update-thread.use-case';

/** Starting a thread, the one way: POST /chat in the gateway, a routine's firing in the worker. */
@Module({
  imports: [QueuesModule, FileAttachmentsModule],
  providers: [StartThread],
  exports: [StartThread],
})
export class ThreadStartModule {}

const THREAD_USE_CASES = [
  PostMessage,
  ListThreads,
  GetThread,
  UpdateThread,
  ArchiveThread,
  CompactThread,
  DecideApproval,
  RegenerateReply,
  EditMessage,
  ListBranches,
  SetActiveBranch,
];

/**
 * Every other chat use case, for the gateway's chat routes: a thread's messages, listing, reading, renaming,
 * archiving it, asking its next run for a summary, deciding a tool call that waits for a person, regenerating, editing and switching branches, and the channel that stops its run.
 */
@Module({
  imports: [QueuesModule, ThreadStartModule, FileAttachmentsModule],
  providers: [...THREAD_USE_CASES, ThreadReplies, StopThreadReplies, RunCancellation],
  exports: [ThreadStartModule, ...THREAD_USE_CASES, StopThreadReplies, RunCancellation],
})
export class ChatUseCasesModule {}
