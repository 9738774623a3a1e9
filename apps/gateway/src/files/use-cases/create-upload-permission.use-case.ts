import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { Caller } from '@app/identity';
import { ConversationFileRepository, newId } from '@app/persistence';
import { PresignedUpload, StorageDriver } from '@app/storage';
import { storageKeyOf } from '@app/files';
import { UploadPermissionQuery } from '../files.dto';

/**
 * GET /chat/files/upload: records a pending file and answers a presigned POST for it (API-SPEC 2.12). The
 * bytes never pass through the gateway; the storage host enforces the size limit and the content type.
 */
@Injectable()
export class CreateUploadPermission {
  constructor(
    private readonly settings: Settings,
    private readonly files: ConversationFileRepository,
    private readonly storage: StorageDriver,
  ) {}

  async execute(caller: Caller, query: UploadPermissionQuery): Promise<PresignedUpload> {
    const id = newId();
    const storageKey = storageKeyOf(caller.orgId, id);
    await this.files.createPending(
      { orgId: caller.orgId, userId: query.user_id },
      { id, name: query.filename, mimetype: query.mimetype, storageKey },
    );
    return this.storage.presignUpload({
      key: storageKey,
      contentType: query.mimetype,
      fileId: id,
      maxBytes: this.settings.uploadMaxBytes,
      expiresInSeconds: this.settings.uploadUrlTtlSeconds,
    });
  }
}
