import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, SelectQueryBuilder } from 'typeorm';
import { ConversationFileEntity } from '../entities';
import { entityFromJson } from './entity-rows';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

interface NewConversationFile {
  id: string;
  name: string;
  mimetype: string;
  storageKey: string;
}

/**
 * Whose files a scope sees: the organization's, and when an end user is named, that user's files and the
 * files uploaded without a user (a permission that named none belongs to the whole organization).
 */
function whereVisible(
  query: SelectQueryBuilder<ConversationFileEntity>,
  scope: Scope,
): SelectQueryBuilder<ConversationFileEntity> {
  query.andWhere('f.org_id = :orgId', { orgId: scope.orgId });
  if (scope.userId != null) {
    query.andWhere(
      new Brackets((q) =>
        q.where('f.user_id IS NULL').orWhere('f.user_id = :userId', { userId: scope.userId }),
      ),
    );
  }
  return query;
}

/**
 * The organization's ($1) uploaded files among $2 and the files agents wrote for the messages $3, oldest first:
 * every rendering of messages asks it.
 */
const FILES_FOR_MESSAGES = preparedStatement({
  name: 'conversation_files_for_messages',
  text: `SELECT to_jsonb(f) AS file FROM conversation_files f
         WHERE f.org_id = $1 AND ((f.id = ANY ($2::uuid[]) AND f.status = 'uploaded')
           OR (f.message_id = ANY ($3::uuid[]) AND f.origin = 'agent'))
         ORDER BY f.created_at, f.id`,
});

/**
 * Seals pending file $1 of organization $2 as uploaded (its final key $3, size $4, type $5), then answers the row as
 * it is now: the update's own row, else (uploaded already, its first record kept) the stored one.
 */
const MARK_UPLOADED = preparedStatement({
  name: 'conversation_file_mark_uploaded',
  text: `WITH sealed AS (
           UPDATE conversation_files SET status = 'uploaded', storage_key = $3, size = $4, mimetype = $5,
                  uploaded_at = now()
           WHERE id = $1 AND org_id = $2 AND status = 'pending' RETURNING *)
         SELECT to_jsonb(s) AS file FROM sealed s
         UNION ALL
         SELECT to_jsonb(f) FROM conversation_files f
         WHERE f.id = $1 AND f.org_id = $2 AND NOT EXISTS (SELECT 1 FROM sealed)`,
});

/** Conversation files. "Missing" and "not yours" are the same null. */
@Injectable()
export class ConversationFileRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Whether a file is recorded at the storage key: the storage host takes an upload's bytes only then, so an
   * upload permission of a file erased since (or never recorded) stores nothing.
   */
  // crosses tenants: the storage host takes an upload by its signed key, before any organization is known
  async isRecordedAt(storageKey: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM conversation_files WHERE storage_key = $1`, [
      storageKey,
    ]);
    return rows.length > 0;
  }

  /** A user's file, before its bytes reach the storage host. */
  async createPending(
    scope: Scope,
    file: NewConversationFile,
    db: Db = this.db.manager,
  ): Promise<ConversationFileEntity> {
    return withTenant(db, scope, (tx) =>
      this.insert(tx, {
        ...file,
        orgId: scope.orgId,
        userId: scope.userId ?? null,
        size: 0,
        origin: 'user',
        status: 'pending',
        messageId: null,
        uploadedAt: null,
      }),
    );
  }

  findVisible(scope: Scope, id: string, db: Db = this.db.manager): Promise<ConversationFileEntity | null> {
    return withTenant(db, scope, (tx) =>
      whereVisible(
        tx.getRepository(ConversationFileEntity).createQueryBuilder('f').where('f.id = :id', { id }),
        scope,
      ).getOne(),
    );
  }

  /** Any file by id: for a public share link, whose own id is what grants access. */
  // crosses tenants: a public share link's file: the link's own id grants it, no organization is known
  findById(id: string, db: Db = this.db.manager): Promise<ConversationFileEntity | null> {
    return db.getRepository(ConversationFileEntity).findOneBy({ id });
  }

  /** The visible files among `ids`, in no particular order. */
  findManyVisible(scope: Scope, ids: string[], db: Db = this.db.manager): Promise<ConversationFileEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return withTenant(db, scope, (tx) =>
      whereVisible(
        tx.getRepository(ConversationFileEntity).createQueryBuilder('f').where('f.id IN (:...ids)', { ids }),
        scope,
      ).getMany(),
    );
  }

  /** The organization's uploaded files among `ids` and the files agents wrote for `messageIds`. */
  async findForMessages(
    orgId: string,
    ids: string[],
    messageIds: string[],
  ): Promise<ConversationFileEntity[]> {
    if (ids.length === 0 && messageIds.length === 0) return [];
    const rows = await runPreparedAsTenant<{ file: Record<string, unknown> }>(
      this.db,
      { orgId },
      FILES_FOR_MESSAGES,
      [orgId, ids, messageIds],
    );
    return rows.map((row) => entityFromJson(this.db, ConversationFileEntity, row.file));
  }

  /**
   * Records the sealed object of a pending file (its final key, size and type); the file as it is now, or
   * null when it is gone. A file already marked uploaded keeps its first record (the object is written once).
   */
  async markUploaded(
    scope: Pick<Scope, 'orgId'>,
    id: string,
    stored: { storageKey: string; size: number; mimetype: string },
  ): Promise<ConversationFileEntity | null> {
    const [row] = await runPreparedAsTenant<{ file: Record<string, unknown> }>(
      this.db,
      scope,
      MARK_UPLOADED,
      [id, scope.orgId, stored.storageKey, stored.size, stored.mimetype],
    );
    return row ? entityFromJson(this.db, ConversationFileEntity, row.file) : null;
  }

  private async insert(db: Db, values: Partial<ConversationFileEntity>): Promise<ConversationFileEntity> {
    const repository = db.getRepository(ConversationFileEntity);
    const id = values.id!;
    await repository.insert(repository.create({ createdAt: new Date(), ...values }));
    // Read back: TypeORM merges generated values into the inserted object without the column transformers.
    return (await repository.findOneBy({ id }))!;
  }
}
