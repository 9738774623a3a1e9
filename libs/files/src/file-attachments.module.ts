import { Module } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import { StorageModule } from '@app/storage';
import { FileAttachments } from './file-attachments';

/** Conversation files and share links over the storage driver, for the chat, files and sources areas and the runtime. */
@Module({
  imports: [StorageModule, DocumentsModule],
  providers: [FileAttachments],
  exports: [FileAttachments],
})
export class FileAttachmentsModule {}
