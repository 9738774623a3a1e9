import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { FileAttachmentsModule } from '@app/files';
import { CompactThread } from './compact-thread.use-case';
import { StartThread } from './start-thread.use-case';

/**
 * Starting a thread, the one way: POST /chat in the gateway, a routine's firing in the worker; and asking a
 * thread's next run for a summary.
 */
@Module({
  imports: [QueuesModule, FileAttachmentsModule],
  providers: [StartThread, CompactThread],
  exports: [StartThread, CompactThread],
})
export class ThreadStartModule {}
