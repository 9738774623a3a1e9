export * from './exact-length';
export * from './file-attachments';
export * from './file.mapper';
export * from './file-attachments.module';
export * from './share-link-password';
