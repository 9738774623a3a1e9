import { Injectable } from '@nestjs/common';
import { InvalidInputError, NotFoundError, ShareLinkResponse, valueErrorIssue } from '@app/contracts';
import { Caller } from '@app/identity';
import { ShareLinkRepository } from '@app/persistence';
import { FileAttachments, hashSharePassword, toShareLinkResponse } from '@app/files';
import { CreateShareLinkDto } from '../files.dto';
import { FILE_NOT_FOUND, FileInput } from './get-conversation-file.use-case';

/** POST /chat/files/{file_id}/share_links: a public link to the file, optionally expiring and protected. */
@Injectable()
export class CreateShareLink {
  constructor(
    private readonly attachments: FileAttachments,
    private readonly links: ShareLinkRepository,
  ) {}

  async execute(caller: Caller, input: FileInput & { body: CreateShareLinkDto }): Promise<ShareLinkResponse> {
    const { body } = input;
    const expiresAt = body.expires_at != null ? new Date(body.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new InvalidInputError([
        valueErrorIssue(['body', 'expires_at'], body.expires_at, 'expires_at must be in the future'),
      ]);
    }
    const scope = { orgId: caller.orgId, userId: input.userId };
    const file = await this.attachments.findUploaded(scope, input.fileId);
    if (!file) throw new NotFoundError(FILE_NOT_FOUND);
    const link = await this.links.create(scope, file.id, {
      expiresAt,
      passwordHash: body.password != null ? await hashSharePassword(body.password) : null,
    });
    return toShareLinkResponse(link, this.attachments.publicBaseUrl);
  }
}
