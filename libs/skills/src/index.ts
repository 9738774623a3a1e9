export * from './platform-skills.loader';
export * from './skill-document';
export * from './skill-read.tool';
export * from './skill-tools.module';
