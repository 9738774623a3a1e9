import { Module } from '@nestjs/common';
import { StartThread } from './start-thread.use-case';

/** Starting a thread, the one way: POST /chat in the gateway, a routine's firing in the worker. */
@Module({
  providers: [StartThread],
  exports: [StartThread],
})
export class ThreadStartModule {}
