export * from './agent-run.queue';
export * from './job-trace-context';
export * from './queues.module';
export * from './source-sync.queue';
export * from './webhook-delivery.queue';
export * from './routine-schedules';
export * from './erasure.queue';
export * from './queue-incidents';
