import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { ThreadStartModule } from '@app/chat';
import { FileAttachmentsModule } from '@app/files';
import { RunCancellation } from '@app/run-events';
import { ChatController } from './chat.controller';
import { ArchiveThread } from './use-cases/archive-thread.use-case';
import { GetThread } from './use-cases/get-thread.use-case';
import { ListThreads } from './use-cases/list-threads.use-case';
import { PostMessage } from './use-cases/post-message.use-case';
import { UpdateThread } from './use-cases/update-thread.use-case';

const USE_CASES = [PostMessage, ListThreads, GetThread, UpdateThread, ArchiveThread];

/** The chat endpoints, and the channel that stops a thread's run; repositories, queues and settings come from the global modules. */
@Module({
  imports: [QueuesModule, ThreadStartModule, FileAttachmentsModule],
  controllers: [ChatController],
  providers: [...USE_CASES, RunCancellation],
  // The protocols of CONTRACTS §18 post follow-ups as POST /chat/{thread_id} does.
  exports: [PostMessage, RunCancellation],
})
export class ChatModule {}
