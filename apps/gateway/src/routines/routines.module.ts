import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { ThreadStartModule } from '@app/chat';
import { FileAttachmentsModule } from '@app/files';
import { RoutinesController } from './routines.controller';
import { RoutineUseCases } from './routine.use-cases';

/** /routines routes; a run by hand starts its thread as POST /chat does. */
@Module({
  imports: [QueuesModule, ThreadStartModule, FileAttachmentsModule],
  controllers: [RoutinesController],
  providers: [RoutineUseCases],
})
export class RoutinesApiModule {}
