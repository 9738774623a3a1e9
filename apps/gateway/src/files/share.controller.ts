import { Controller, Get, Headers, Ip, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { attachmentDisposition, DOWNLOAD_HEADERS } from '@app/storage';
import { Public } from '../auth/public.decorator';
import { DownloadSharedFile } from './use-cases/download-shared-file.use-case';

/** The public side of share links: no service token, the link id is the capability (CONTRACTS §8). */
@ApiTags('files')
@Controller('share')
export class ShareController {
  constructor(private readonly downloadSharedFile: DownloadSharedFile) {}

  @Public()
  @Get(':link_id')
  @ApiOperation({
    summary: 'Download a shared file (public: no x-service-token)',
    description: 'Each answered download counts in access_count and sets last_accessed_at.',
    security: [],
  })
  @ApiHeader({ name: 'x-share-password', required: false, description: 'The password of a protected link' })
  @ApiResponse({ status: 200, description: "The file's bytes" })
  @ApiResponse({ status: 401, description: 'Protected link, no password given' })
  @ApiResponse({ status: 403, description: 'Wrong password' })
  @ApiResponse({ status: 404, description: 'No such link' })
  @ApiResponse({ status: 410, description: 'Revoked or expired' })
  @ApiResponse({
    status: 429,
    description: 'Too many password attempts at this link or from this address; see Retry-After',
  })
  async download(
    @Param('link_id') linkId: string,
    @Headers('x-share-password') password: string | undefined,
    @Ip() clientAddress: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const file = await this.downloadSharedFile.execute({ linkId, password, clientAddress });
    void reply.headers(DOWNLOAD_HEADERS);
    return new StreamableFile(file.body, {
      type: file.mimetype,
      length: file.size,
      disposition: attachmentDisposition(file.name),
    });
  }
}
