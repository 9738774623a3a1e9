import { Module } from '@nestjs/common';
import { ThreadStartModule } from '@app/chat';
import { RoutinesController } from './routines.controller';
import { RoutineUseCases } from './routine.use-cases';

/** /routines routes; a run by hand starts its thread as POST /chat does. */
@Module({
  imports: [ThreadStartModule],
  controllers: [RoutinesController],
  providers: [RoutineUseCases],
})
export class RoutinesApiModule {}
