import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { FileAttachmentsModule } from '@app/files';
import { StartThread } from './start-thread.use-case';

/** Starting a thread, the one way: POST /chat in the gateway, a routine's firing in the worker. */
@Module({
  imports: [QueuesModule, FileAttachmentsModule],
  providers: [StartThread],
  exports: [StartThread],
})
export class ThreadStartModule {}
