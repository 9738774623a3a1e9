import { Module } from '@nestjs/common';
import { FileAttachmentsModule } from '@app/files';
import { StorageModule } from '@app/storage';
import { AuthModule } from '../auth/auth.module';
import { StorageHostModule } from '../storage-host/storage-host.module';
import { FilesController } from './files.controller';
import { ShareController } from './share.controller';
import { CreateShareLink } from './use-cases/create-share-link.use-case';
import { CreateUploadPermission } from './use-cases/create-upload-permission.use-case';
import { DownloadSharedFile } from './use-cases/download-shared-file.use-case';
import { GetConversationFile } from './use-cases/get-conversation-file.use-case';
import { RevokeShareLink } from './use-cases/revoke-share-link.use-case';

const USE_CASES = [
  CreateUploadPermission,
  GetConversationFile,
  CreateShareLink,
  RevokeShareLink,
  DownloadSharedFile,
];

/**
 * File upload and share links. Brings the file attachments and storage driver into the gateway, and the
 * embedded storage host when STORAGE_DRIVER=local.
 */
@Module({
  imports: [FileAttachmentsModule, StorageModule, StorageHostModule, AuthModule],
  controllers: [FilesController, ShareController],
  providers: USE_CASES,
})
export class FilesModule {}
