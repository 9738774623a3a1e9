export * from './company-documents.tool';
export * from './company-documents-tool.module';
