import { Module } from '@nestjs/common';
import { UntrustedParsing } from './untrusted-parsing/untrusted-parsing';

/** The parsing threads for untrusted content, shared by attachments, synced documents, skills and web pages. */
@Module({
  providers: [UntrustedParsing],
  exports: [UntrustedParsing],
})
export class DocumentsModule {}
