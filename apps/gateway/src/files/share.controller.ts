import { Controller, Get, Headers, Ip, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { attachmentDisposition, DOWNLOAD_HEADERS } from '@app/storage';
import { Public } from '../auth/public.decorator';
import { ApiErrors } from '../http/api-errors';
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
  @ApiResponse({
    status: 200,
    description: "The file's bytes",
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors([401, 403, 404, 410, 429, 503], {
    401: 'Protected link, no password given',
    403: 'Wrong password',
    404: 'No such link',
    410: 'Revoked or expired',
    429: 'Too many password attempts at this link or from this address; see Retry-After',
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
