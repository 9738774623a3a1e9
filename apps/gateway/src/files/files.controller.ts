import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConversationFileResponse, ShareLinkResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { PresignedUpload } from '@app/storage';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../auth/end-user-token-allowed.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { ReadOneRoute } from '../routes/resource-routes';
import {
  CreateShareLinkDto,
  FileOwnerQuery,
  FileParams,
  ShareLinkParams,
  UploadPermissionQuery,
  UploadPermissionResponse,
} from './files.dto';
import { CreateShareLink } from './use-cases/create-share-link.use-case';
import { CreateUploadPermission } from './use-cases/create-upload-permission.use-case';
import { GetConversationFile } from './use-cases/get-conversation-file.use-case';
import { RevokeShareLink } from './use-cases/revoke-share-link.use-case';

/**
 * The two-step upload (API-SPEC 4.4, CONTRACTS §8) and share links. Static `files/...` segments win over the
 * chat routes' `:thread_id` in Fastify's router, so GET /chat/files/upload is never read as a thread id.
 */
@ServiceApiController('files', 'chat/files')
export class FilesController {
  constructor(
    private readonly createUploadPermission: CreateUploadPermission,
    private readonly getConversationFile: GetConversationFile,
    private readonly createShareLink: CreateShareLink,
    private readonly revokeShareLink: RevokeShareLink,
  ) {}

  /** Answers {url, fields}: POST them as multipart/form-data to `url`, then `file` last, without the token. */
  @Get('upload')
  @ApiOperation({
    summary: 'Get an upload permission (first step of the two-step upload)',
    description:
      'Answers {url, fields}. Second step: POST multipart/form-data to url with every field, then the field ' +
      '`file` last, without x-service-token; the storage host answers 204, or refuses a file over the size ' +
      'limit, an expired permission or altered fields. Put fields["x-amz-meta-file-id"] in message.file_ids.',
  })
  @ApiOkResponse({ type: UploadPermissionResponse })
  @EndUserTokenAllowed()
  upload(@CurrentCaller() caller: Caller, @Query() query: UploadPermissionQuery): Promise<PresignedUpload> {
    return this.createUploadPermission.execute(caller, query);
  }

  @ReadOneRoute(
    ':file_id',
    { summary: 'An uploaded file as ConversationFile, with its share links' },
    ConversationFileResponse,
  )
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: FileParams,
    @Query() query: FileOwnerQuery,
  ): Promise<ConversationFileResponse> {
    return this.getConversationFile.execute(caller, { fileId: params.file_id, userId: query.user_id });
  }

  @Post(':file_id/share_links')
  @ApiOperation({
    summary: 'Create a share link',
    description: 'A public download address for the file, optionally expiring and password-protected.',
  })
  @ApiOkResponse({ type: ShareLinkResponse })
  @ApiErrors([400, 404, 413])
  @HttpCode(200)
  share(
    @CurrentCaller() caller: Caller,
    @Param() params: FileParams,
    @Query() query: FileOwnerQuery,
    @Body() body: CreateShareLinkDto,
  ): Promise<ShareLinkResponse> {
    return this.createShareLink.execute(caller, { fileId: params.file_id, userId: query.user_id, body });
  }

  @Delete(':file_id/share_links/:link_id')
  @ApiOperation({ summary: 'Revoke a share link; it stays listed with revoked: true' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors([404])
  @HttpCode(204)
  revoke(
    @CurrentCaller() caller: Caller,
    @Param() params: ShareLinkParams,
    @Query() query: FileOwnerQuery,
  ): Promise<void> {
    return this.revokeShareLink.execute(caller, {
      fileId: params.file_id,
      linkId: params.link_id,
      userId: query.user_id,
    });
  }
}
