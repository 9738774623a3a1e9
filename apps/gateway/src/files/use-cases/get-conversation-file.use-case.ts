import { Injectable } from '@nestjs/common';
import { ConversationFileResponse, NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { FileAttachments } from '@app/files';

export const FILE_NOT_FOUND = 'File not found';

export interface FileInput {
  fileId: string;
  /** `user_id` of the query string, if any. */
  userId?: string;
}

/** GET /chat/files/{file_id}: one uploaded file as ConversationFile, with its share links. */
@Injectable()
export class GetConversationFile {
  constructor(private readonly attachments: FileAttachments) {}

  async execute(caller: Caller, input: FileInput): Promise<ConversationFileResponse> {
    const scope = { orgId: caller.orgId, userId: input.userId };
    const file = await this.attachments.findUploaded(scope, input.fileId);
    if (!file) throw new NotFoundError(FILE_NOT_FOUND);
    return (await this.attachments.toResponses(scope, [file]))[0];
  }
}
