import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { newId, ShareLinkEntity } from '../entities';
import { Db } from './scope';

interface NewShareLink {
  expiresAt: Date | null;
  passwordHash: string | null;
}

interface ShareLinkRow {
  id: string;
  file_id: string;
  created_at: Date;
  expires_at: Date | null;
  password_hash: string | null;
  revoked_at: Date | null;
  access_count: string;
  last_accessed_at: Date | null;
}

function toEntity(row: ShareLinkRow): ShareLinkEntity {
  return Object.assign(new ShareLinkEntity(), {
    id: row.id,
    fileId: row.file_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    passwordHash: row.password_hash,
    revokedAt: row.revoked_at,
    accessCount: Number(row.access_count),
    lastAccessedAt: row.last_accessed_at,
  });
}

/**
 * Share links of conversation files. Callers check that the file is the caller's first (its repository
 * scopes it); the public download finds a link by its id alone, which is its secret.
 */
@Injectable()
export class ShareLinkRepository {
  constructor(private readonly db: DataSource) {}

  async create(fileId: string, link: NewShareLink, db: Db = this.db.manager): Promise<ShareLinkEntity> {
    const rows: ShareLinkRow[] = await db.query(
      `INSERT INTO share_links (id, file_id, expires_at, password_hash) VALUES ($1, $2, $3, $4) RETURNING *`,
      [newId(), fileId, link.expiresAt, link.passwordHash],
    );
    return toEntity(rows[0]);
  }

  findById(id: string, db: Db = this.db.manager): Promise<ShareLinkEntity | null> {
    return db.getRepository(ShareLinkEntity).findOneBy({ id });
  }

  /** The links of these files, oldest first. */
  listByFiles(fileIds: string[], db: Db = this.db.manager): Promise<ShareLinkEntity[]> {
    if (fileIds.length === 0) return Promise.resolve([]);
    return db
      .getRepository(ShareLinkEntity)
      .find({ where: { fileId: In(fileIds) }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Revokes a link of the file (a second revoke keeps the first time); null when it has no such link. */
  async revoke(fileId: string, id: string, db: Db = this.db.manager): Promise<ShareLinkEntity | null> {
    const [rows]: [ShareLinkRow[], number] = await db.query(
      `UPDATE share_links SET revoked_at = COALESCE(revoked_at, now())
       WHERE id = $1 AND file_id = $2 RETURNING *`,
      [id, fileId],
    );
    return rows.length > 0 ? toEntity(rows[0]) : null;
  }

  /**
   * Counts one download, in one statement so concurrent downloads never lose a count; null when the link is
   * revoked or expired by now (then nothing is counted).
   */
  async countAccess(id: string, db: Db = this.db.manager): Promise<ShareLinkEntity | null> {
    const [rows]: [ShareLinkRow[], number] = await db.query(
      `UPDATE share_links SET access_count = access_count + 1, last_accessed_at = now()
       WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
       RETURNING *`,
      [id],
    );
    return rows.length > 0 ? toEntity(rows[0]) : null;
  }
}
