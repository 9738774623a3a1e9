import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  UnauthenticatedError,
  isRowId,
} from '@app/contracts';
import { ConversationFileEntity, ConversationFileRepository, ShareLinkRepository } from '@app/persistence';
import { FileAttachments, StoredObjectMismatchError, verifySharePassword } from '@app/files';
import { PasswordAttempts } from '../../auth/password-attempts';
import { SHARE_LINK_NOT_FOUND } from './revoke-share-link.use-case';

interface SharedFile {
  name: string;
  mimetype: string;
  size: number;
  body: Readable;
}

/**
 * GET /share/{link_id}, public (CONTRACTS §8): the file's bytes for whoever holds the link, and the password
 * when it has one (401 without, 403 wrong, 429 after too many attempts); 410 once revoked or expired. Each download that is answered
 * counts once, atomically.
 */
@Injectable()
export class DownloadSharedFile {
  constructor(
    private readonly links: ShareLinkRepository,
    private readonly files: ConversationFileRepository,
    private readonly attachments: FileAttachments,
    private readonly attempts: PasswordAttempts,
  ) {}

  async execute(input: { linkId: string; password?: string; clientAddress: string }): Promise<SharedFile> {
    const link = isRowId(input.linkId) ? await this.links.findById(input.linkId) : null;
    if (!link) throw new NotFoundError(SHARE_LINK_NOT_FOUND);
    assertUsable(link);
    if (link.passwordHash !== null) {
      if (!input.password) throw new UnauthenticatedError('This link needs its password in x-share-password');
      // Counted before scrypt runs: a stranger's guesses are bounded per link and per address (429).
      const attempt = await this.attempts.take({ shareLink: link.id, shareClient: input.clientAddress });
      if (!(await verifySharePassword(input.password, link.passwordHash))) {
        throw new ForbiddenError('Wrong password');
      }
      await attempt.succeeded();
    }
    const file = await this.files.findById(link.fileId);
    const body = file ? await this.openRecorded(file) : null;
    if (!file || !body) throw new NotFoundError(SHARE_LINK_NOT_FOUND);
    // Counted by the statement that re-checks the link, so a revoke or expiry in between is still a 410.
    const counted = await this.links.countAccess(link.id);
    if (!counted) {
      body.destroy();
      throw new GoneError('This link has been revoked or has expired');
    }
    return { name: file.name, mimetype: file.mimetype, size: file.size, body };
  }

  /** Exactly the recorded bytes (the size the response declares), or a refusal before any is sent. */
  private async openRecorded(file: ConversationFileEntity): Promise<Readable | null> {
    try {
      return await this.attachments.openRecorded(file);
    } catch (error) {
      if (error instanceof StoredObjectMismatchError) {
        throw new ConflictError('The stored file no longer matches what was shared');
      }
      throw error;
    }
  }
}

function assertUsable(link: { revokedAt: Date | null; expiresAt: Date | null }): void {
  if (link.revokedAt) throw new GoneError('This link has been revoked');
  if (link.expiresAt && link.expiresAt.getTime() <= Date.now()) throw new GoneError('This link has expired');
}
