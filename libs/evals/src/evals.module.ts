import { Module } from '@nestjs/common';
import {
  CreateEvalDataset,
  DeleteEvalDataset,
  GetEvalDataset,
  ListEvalDatasets,
} from './use-cases/eval-datasets.use-case';
import { GetEvalRun, ListEvalRuns, StartEvalRun } from './use-cases/eval-runs.use-case';

const USE_CASES = [
  CreateEvalDataset,
  GetEvalDataset,
  ListEvalDatasets,
  DeleteEvalDataset,
  StartEvalRun,
  GetEvalRun,
  ListEvalRuns,
];

/** Datasets and runs of evaluations (CONTRACTS §23), for the /evals routes and the admin CLI's `evals:run`. */
@Module({ providers: USE_CASES, exports: USE_CASES })
export class EvalsModule {}
