import { Global, Module } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import { StorageModule } from '@app/storage';
import { FileAttachments } from './file-attachments';

/**
 * Conversation files and share links over the storage driver, for every app that touches files (gateway,
 * worker). Global: import it once in the app's root module.
 */
@Global()
@Module({
  imports: [StorageModule, DocumentsModule],
  providers: [FileAttachments],
  exports: [FileAttachments, StorageModule, DocumentsModule],
})
export class FileAttachmentsModule {}
