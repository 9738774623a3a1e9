export * from './agent-run.queue';
export * from './queues.module';
