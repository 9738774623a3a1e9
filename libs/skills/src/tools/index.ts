export * from './skill-read.tool';
export * from './skill-tools.module';
