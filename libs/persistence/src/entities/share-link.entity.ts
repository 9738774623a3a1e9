import { Entity } from 'typeorm';
import { BigintColumn, CreatedAtColumn, IdColumn, TextColumn, TimestampColumn, UuidColumn } from './columns';

/** A public download link of a conversation file (API-SPEC 2.6). */
@Entity('share_links')
export class ShareLinkEntity {
  @IdColumn()
  id: string;

  @UuidColumn({ name: 'file_id' })
  fileId: string;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn({ name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  /** scrypt hash of the link's password; null when the link is not protected. */
  @TextColumn({ name: 'password_hash', nullable: true })
  passwordHash: string | null;

  @TimestampColumn({ name: 'revoked_at', nullable: true })
  revokedAt: Date | null;

  @BigintColumn({ name: 'access_count', default: 0 })
  accessCount: number;

  @TimestampColumn({ name: 'last_accessed_at', nullable: true })
  lastAccessedAt: Date | null;
}
