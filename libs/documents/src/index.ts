export * from './attachment-text';
export * from './document-text';
export * from './documents.module';
export * from './untrusted-parsing/untrusted-parsing';
