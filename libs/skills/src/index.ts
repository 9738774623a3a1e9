export * from './platform-skills.loader';
export * from './skill-document';
