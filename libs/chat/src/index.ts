export * from './chat.rules';
export * from './chat.module';
export * from './start-thread.use-case';
export * from './compact-thread.use-case';
