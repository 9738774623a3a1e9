import { Module } from '@nestjs/common';
import { FileAttachmentsModule } from '@app/files';
import { QueuesModule } from '@app/queues';
import { ErasureController } from './erasure.controller';
import { ExportUser } from './export-user.use-case';
import { GetErasure, RequestErasure } from './request-erasure.use-case';
import { RetentionSettings } from './retention.use-case';

/** DELETE /users/{user_id}, GET /erasures/{erasure_id}, GET /users/{user_id}/export, /settings/retention. */
@Module({
  imports: [QueuesModule, FileAttachmentsModule],
  controllers: [ErasureController],
  providers: [RequestErasure, GetErasure, ExportUser, RetentionSettings],
})
export class ErasureModule {}
