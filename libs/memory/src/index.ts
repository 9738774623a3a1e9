export * from './memory-caller';
export * from './memory-files.module';
export * from './use-cases/read-memory-file.use-case';
export * from './use-cases/write-memory-file.use-case';
export * from './use-cases/list-memory-files.use-case';
export * from './use-cases/delete-memory-file.use-case';
