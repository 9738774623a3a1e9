import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { ThreadStartModule } from '@app/chat';
import { FileAttachmentsModule } from '@app/files';
import { RoutinesController } from './routines.controller';
import { CreateRoutine } from './use-cases/create-routine.use-case';
import { GetRoutine } from './use-cases/get-routine.use-case';
import { ListRoutines } from './use-cases/list-routines.use-case';
import { RemoveRoutine } from './use-cases/remove-routine.use-case';
import { RoutineRules } from './use-cases/routine-rules';
import { RunRoutineNow } from './use-cases/run-routine-now.use-case';
import { UpdateRoutine } from './use-cases/update-routine.use-case';

const USE_CASES = [CreateRoutine, ListRoutines, GetRoutine, UpdateRoutine, RemoveRoutine, RunRoutineNow];

/** /routines routes; a run by hand starts its thread as POST /chat does. */
@Module({
  imports: [QueuesModule, ThreadStartModule, FileAttachmentsModule],
  controllers: [RoutinesController],
  providers: [RoutineRules, ...USE_CASES],
})
export class RoutinesApiModule {}
