export * from './fire-routine.use-case';
export * from './routine-metrics';
export * from './routine-schedule';
export * from './routines.module';
