import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { ShareLinkRepository } from '@app/persistence';
import { FileAttachments } from '@app/files';
import { FILE_NOT_FOUND, FileInput } from './get-conversation-file.use-case';

export const SHARE_LINK_NOT_FOUND = 'Share link not found';

/** DELETE /chat/files/{file_id}/share_links/{link_id}: the link stops working and stays listed as revoked. */
@Injectable()
export class RevokeShareLink {
  constructor(
    private readonly attachments: FileAttachments,
    private readonly links: ShareLinkRepository,
  ) {}

  async execute(caller: Caller, input: FileInput & { linkId: string }): Promise<void> {
    const scope = { orgId: caller.orgId, userId: input.userId };
    const file = await this.attachments.findUploaded(scope, input.fileId);
    if (!file) throw new NotFoundError(FILE_NOT_FOUND);
    if (!(await this.links.revoke(scope, file.id, input.linkId)))
      throw new NotFoundError(SHARE_LINK_NOT_FOUND);
  }
}
