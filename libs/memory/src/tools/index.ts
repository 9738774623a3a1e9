export * from './memory-tool-source';
export * from './memory-tools.module';
