import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MemoryFileEntity, newId } from '../entities';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

export interface MemoryFileKey {
  namespace: string;
  path: string;
}

export interface MemoryFileWrite extends MemoryFileKey {
  purpose: string;
  content: string;
  /**
   * The end user of the agent run that writes (CONTRACTS §21), added to the file's writers. Absent or null (a
   * write through the HTTP routes, a run for no end user): the file's writers stay as they were.
   */
  writtenByUserId?: string | null;
}

/** A listing item: the file without its content. */
type MemoryFileSummary = Omit<MemoryFileEntity, 'content'>;

interface MemoryFileRow {
  id: string;
  org_id: string;
  namespace: string;
  path: string;
  purpose: string;
  content?: string;
  written_by_user_ids: string[];
  created_at: Date;
  updated_at: Date;
  version: string;
}

/** The version is the write time, UTC, with microseconds: a date-time string (spec 2.8). */
const versionOf = (timestamp: string) =>
  `to_char((${timestamp}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Never earlier than the previous write plus 1 µs, so a file's version strictly increases even if the clock
 * does not move (or steps back) between two writes. statement_timestamp() is one value for the statement, so
 * `updated_at` and `version` agree.
 */
const NEXT_WRITE_TIME = `GREATEST(statement_timestamp(), f.updated_at + interval '1 microsecond')`;

const SUMMARY_COLUMNS =
  'id, org_id, namespace, path, purpose, written_by_user_ids, created_at, updated_at, version';

/**
 * The memory files of one end user (CONTRACTS §21), on a `memory_files` row aliased `f`, for $1 organization and
 * $2 end user: those any of their runs wrote and every file of a namespace granted in their end-user tokens. What
 * erasure deletes and export lists.
 */
export const END_USER_MEMORY_FILES_SQL = `f.org_id = $1 AND (f.written_by_user_ids @> ARRAY[$2::text] OR f.namespace IN (
  SELECT g.namespace FROM end_user_memory_namespaces g WHERE g.org_id = $1 AND g.user_id = $2))`;

function toEntity(row: MemoryFileRow): MemoryFileEntity {
  return Object.assign(new MemoryFileEntity(), {
    id: row.id,
    orgId: row.org_id,
    namespace: row.namespace,
    path: row.path,
    purpose: row.purpose,
    content: row.content,
    writtenByUserIds: row.written_by_user_ids,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  });
}

/**
 * Memory files of one organization. Only `scope.orgId` narrows: a namespace is shared by the organization's
 * end users (the user id never selects it, spec 4.5). Writes are single conditional statements, so two writers
 * never overwrite each other unseen.
 */
@Injectable()
export class MemoryFileRepository {
  constructor(private readonly db: DataSource) {}

  async find(scope: Scope, key: MemoryFileKey, db: Db = this.db.manager): Promise<MemoryFileEntity | null> {
    const rows: MemoryFileRow[] = await withTenant(db, scope, (tx) =>
      tx.query(`SELECT * FROM memory_files WHERE org_id = $1 AND namespace = $2 AND path = $3`, [
        scope.orgId,
        key.namespace,
        key.path,
      ]),
    );
    return rows.length > 0 ? toEntity(rows[0]) : null;
  }

  /** The files of a namespace, or of one folder of it, ordered by path. */
  async list(
    scope: Scope,
    namespace: string,
    folder: string | null,
    db: Db = this.db.manager,
  ): Promise<MemoryFileSummary[]> {
    const rows: MemoryFileRow[] = await withTenant(db, scope, (tx) =>
      tx.query(
        `SELECT ${SUMMARY_COLUMNS} FROM memory_files
       WHERE org_id = $1 AND namespace = $2 AND ($3::text IS NULL OR starts_with(path, $3 || '/'))
       ORDER BY path`,
        [scope.orgId, namespace, folder],
      ),
    );
    return rows.map(toEntity);
  }

  /** Creates the file; null when one already exists at that path (nothing written). */
  async create(
    scope: Scope,
    file: MemoryFileWrite,
    db: Db = this.db.manager,
  ): Promise<MemoryFileEntity | null> {
    const rows: MemoryFileRow[] = await withTenant(db, scope, (tx) =>
      tx.query(
        `INSERT INTO memory_files
         (id, org_id, namespace, path, purpose, content, written_by_user_ids, created_at, updated_at, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, statement_timestamp(), statement_timestamp(), ${versionOf('statement_timestamp()')})
       ON CONFLICT (org_id, namespace, path) DO NOTHING
       RETURNING *`,
        [
          newId(),
          scope.orgId,
          file.namespace,
          file.path,
          file.purpose,
          file.content,
          file.writtenByUserId ? [file.writtenByUserId] : [],
        ],
      ),
    );
    return rows.length > 0 ? toEntity(rows[0]) : null;
  }

  /**
   * Replaces purpose and content if the stored version is still `version`; null when it is not (or the file
   * is gone), and then nothing is written. The version test is on the row being updated, so a concurrent
   * writer that committed first makes this one match nothing.
   */
  async updateIfVersion(
    scope: Scope,
    file: MemoryFileWrite,
    version: string,
    db: Db = this.db.manager,
  ): Promise<MemoryFileEntity | null> {
    // TypeORM answers an UPDATE with [rows, affected count].
    const [rows]: [MemoryFileRow[], number] = await withTenant(db, scope, (tx) =>
      tx.query(
        `UPDATE memory_files AS f
       SET purpose = $5, content = $6, updated_at = ${NEXT_WRITE_TIME}, version = ${versionOf(NEXT_WRITE_TIME)},
         written_by_user_ids = CASE WHEN $7::text IS NULL OR $7 = ANY (f.written_by_user_ids)
           THEN f.written_by_user_ids ELSE array_append(f.written_by_user_ids, $7) END
       WHERE f.org_id = $1 AND f.namespace = $2 AND f.path = $3 AND f.version = $4
       RETURNING f.*`,
        [
          scope.orgId,
          file.namespace,
          file.path,
          version,
          file.purpose,
          file.content,
          file.writtenByUserId ?? null,
        ],
      ),
    );
    return rows.length > 0 ? toEntity(rows[0]) : null;
  }

  /** True when a file was deleted. */
  async delete(scope: Scope, key: MemoryFileKey, db: Db = this.db.manager): Promise<boolean> {
    const [, affected]: [unknown[], number] = await withTenant(db, scope, (tx) =>
      tx.query(`DELETE FROM memory_files WHERE org_id = $1 AND namespace = $2 AND path = $3`, [
        scope.orgId,
        key.namespace,
        key.path,
      ]),
    );
    return affected > 0;
  }
}
