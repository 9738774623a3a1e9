import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId, ShareLinkEntity } from '../entities';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

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

/** The links of the files $1 of organization $2, oldest first: every rendering of files asks it. */
const LINKS_OF_FILES = preparedStatement({
  name: 'share_links_of_files',
  text: `SELECT s.* FROM share_links s JOIN conversation_files f ON f.id = s.file_id
         WHERE s.file_id = ANY ($1::uuid[]) AND f.org_id = $2
         ORDER BY s.created_at, s.id`,
});

/**
 * Share links of conversation files. Callers check that the file is the caller's first (its repository
 * scopes it); the public download finds a link by its id alone, which is its secret.
 */
@Injectable()
export class ShareLinkRepository {
  constructor(private readonly db: DataSource) {}

  /** A link of a file of the scope's organization (the policy refuses one of another's). */
  async create(
    scope: Pick<Scope, 'orgId'>,
    fileId: string,
    link: NewShareLink,
    db: Db = this.db.manager,
  ): Promise<ShareLinkEntity> {
    const rows: ShareLinkRow[] = await withTenant(db, scope, (tx) =>
      tx.query(
        `INSERT INTO share_links (id, file_id, expires_at, password_hash) VALUES ($1, $2, $3, $4) RETURNING *`,
        [newId(), fileId, link.expiresAt, link.passwordHash],
      ),
    );
    return toEntity(rows[0]);
  }

  // crosses tenants: a public share link is found by its id, its secret, before any organization is known
  findById(id: string, db: Db = this.db.manager): Promise<ShareLinkEntity | null> {
    return db.getRepository(ShareLinkEntity).findOneBy({ id });
  }

  /** The links of these files of the scope's organization, oldest first, in one round trip. */
  async listByFiles(scope: Pick<Scope, 'orgId'>, fileIds: string[]): Promise<ShareLinkEntity[]> {
    if (fileIds.length === 0) return [];
    const rows = await runPreparedAsTenant<ShareLinkRow>(this.db, scope, LINKS_OF_FILES, [
      fileIds,
      scope.orgId,
    ]);
    return rows.map(toEntity);
  }

  /** Revokes a link of the file (a second revoke keeps the first time); null when it has no such link. */
  async revoke(
    scope: Pick<Scope, 'orgId'>,
    fileId: string,
    id: string,
    db: Db = this.db.manager,
  ): Promise<ShareLinkEntity | null> {
    const [rows]: [ShareLinkRow[], number] = await withTenant(db, scope, (tx) =>
      tx.query(
        `UPDATE share_links SET revoked_at = COALESCE(revoked_at, now())
         WHERE id = $1 AND file_id = $2
           AND EXISTS (SELECT 1 FROM conversation_files f WHERE f.id = $2 AND f.org_id = $3)
         RETURNING *`,
        [id, fileId, scope.orgId],
      ),
    );
    return rows.length > 0 ? toEntity(rows[0]) : null;
  }

  /**
   * Counts one download, in one statement so concurrent downloads never lose a count; null when the link is
   * revoked or expired by now (then nothing is counted).
   */
  // crosses tenants: a public share link's download is counted by the link's id alone
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
