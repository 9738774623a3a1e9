import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './column-types';

/** A public download link of a conversation file (API-SPEC 2.6). */
@Entity('share_links')
export class ShareLinkEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'file_id', type: 'uuid' })
  fileId: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** scrypt hash of the link's password; null when the link is not protected. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'access_count', type: 'bigint', default: 0, transformer: bigintAsNumber })
  accessCount: number;

  @Column({ name: 'last_accessed_at', type: 'timestamptz', nullable: true })
  lastAccessedAt: Date | null;
}
