export * from './evals.module';
export * from './eval.mapper';
export * from './scorers';
export * from './use-cases/eval-datasets.use-case';
export * from './use-cases/eval-runs.use-case';
