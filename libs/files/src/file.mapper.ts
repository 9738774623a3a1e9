import { ConversationFileResponse, ShareLinkResponse } from '@app/contracts';
import { ConversationFileEntity, ShareLinkEntity } from '@app/persistence';

/** API-SPEC 2.6: exactly these fields; `expired` and `protected` are computed, the hash never leaves. */
export function toShareLinkResponse(
  link: ShareLinkEntity,
  publicBaseUrl: string,
  now = new Date(),
): ShareLinkResponse {
  return {
    created_at: link.createdAt.toISOString(),
    id: link.id,
    last_accessed_at: link.lastAccessedAt ? link.lastAccessedAt.toISOString() : null,
    access_count: link.accessCount,
    revoked: link.revokedAt !== null,
    expires_at: link.expiresAt ? link.expiresAt.toISOString() : null,
    expired: link.expiresAt !== null && link.expiresAt.getTime() <= now.getTime(),
    protected: link.passwordHash !== null,
    url: shareLinkUrl(publicBaseUrl, link.id),
  };
}

const shareLinkUrl = (publicBaseUrl: string, linkId: string): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}/share/${linkId}`;

/** API-SPEC 2.5: exactly these fields; `url` is a signed download address made for this response. */
export function toConversationFileResponse(
  file: ConversationFileEntity,
  links: ShareLinkResponse[],
  url: string,
): ConversationFileResponse {
  return {
    id: file.id,
    name: file.name,
    size: file.size,
    mimetype: file.mimetype,
    origin: file.origin,
    share_links: links,
    url,
  };
}
