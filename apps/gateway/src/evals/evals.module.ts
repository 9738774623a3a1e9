import { Module } from '@nestjs/common';
import { EvalsModule as EvalUseCasesModule } from '@app/evals';
import { EvalsController } from './evals.controller';

@Module({ imports: [EvalUseCasesModule], controllers: [EvalsController] })
export class EvalsModule {}
