export * from './chat.rules';
export * from './chat.module';
export * from './start-thread.use-case';
export * from './post-message.use-case';
export * from './list-threads.use-case';
export * from './get-thread.use-case';
export * from './update-thread.use-case';
export * from './archive-thread.use-case';
