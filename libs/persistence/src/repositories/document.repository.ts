import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DocumentEntity, DocumentStatus, newId } from '../entities';
import { withTenant } from './tenant-scope';

/** A file as a store lists it. */
export interface ListedDocument {
  externalId: string;
  name: string;
  mimeType: string;
  size: number;
  /** Changes whenever the content does (md5, eTag, modified time). */
  version: string;
  addedBy?: string | null;
}

interface NewPassage {
  position: number;
  startOffset: number;
  endOffset: number;
  text: string;
  embedding: number[] | null;
}

/** What fetching one document came to. */
export interface DocumentOutcome {
  status: Exclude<DocumentStatus, 'pending'>;
  error: string | null;
  size: number;
  embeddedSize: number;
  embedded: boolean;
  passages: NewPassage[];
}

const PASSAGE_ROWS_PER_INSERT = 2000;

/** Documents of a source and their passages; written by syncs, read by the API and the search. */
@Injectable()
export class DocumentRepository {
  constructor(private readonly db: DataSource) {}

  /** Inserts or refreshes listed files; a file whose version changed is fetched again. */
  async upsertListed(
    source: { id: number; orgId: string },
    items: ListedDocument[],
    generation: number,
  ): Promise<void> {
    if (items.length === 0) return;
    await withTenant(this.db, source, (tx) =>
      tx.query(
        `INSERT INTO documents (id, source_id, org_id, external_id, name, mime_type, size, wanted_version,
                              seen_generation, added_by)
       SELECT u.id, $1, $2, u.external_id, u.name, u.mime_type, u.size, u.version, $3, u.added_by
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[])
         AS u(id, external_id, name, mime_type, size, version, added_by)
       ON CONFLICT (source_id, external_id) DO UPDATE SET
         name = EXCLUDED.name, mime_type = EXCLUDED.mime_type, size = EXCLUDED.size,
         wanted_version = EXCLUDED.wanted_version, seen_generation = EXCLUDED.seen_generation`,
        [
          source.id,
          source.orgId,
          generation,
          items.map(() => newId()),
          items.map((item) => item.externalId),
          items.map((item) => item.name),
          items.map((item) => item.mimeType),
          items.map((item) => item.size),
          items.map((item) => item.version),
          items.map((item) => item.addedBy ?? null),
        ],
      ),
    );
  }

  /** Deletions propagated from the store (its passages go with it). */
  // crosses tenants: the worker's sync, for whichever organization's source its job names
  async deleteByExternalIds(sourceId: number, externalIds: string[]): Promise<number> {
    if (externalIds.length === 0) return 0;
    const [, count] = (await this.db.query(
      `DELETE FROM documents WHERE source_id = $1 AND external_id = ANY($2::text[])`,
      [sourceId, externalIds],
    )) as [unknown, number];
    return count;
  }

  /** After a full listing: what it did not see is gone from the store. */
  // crosses tenants: the worker's sync, for whichever organization's source its job names
  async deleteUnseen(sourceId: number, generation: number): Promise<number> {
    const [, count] = (await this.db.query(
      `DELETE FROM documents WHERE source_id = $1 AND seen_generation < $2`,
      [sourceId, generation],
    )) as [unknown, number];
    return count;
  }

  /** Documents whose listed version is not the one processed yet, oldest first. */
  // crosses tenants: the worker's sync, for whichever organization's source its job names
  toFetch(sourceId: number, limit: number, excluding: string[] = []): Promise<DocumentEntity[]> {
    return this.db
      .getRepository(DocumentEntity)
      .createQueryBuilder('d')
      .where('d.source_id = :sourceId', { sourceId })
      .andWhere('d.version IS DISTINCT FROM d.wanted_version')
      .andWhere(excluding.length > 0 ? 'd.id <> ALL(:excluding)' : 'TRUE', { excluding })
      .orderBy('d.id')
      .limit(limit)
      .getMany();
  }

  /** Records a fetched document: its passages replace the old ones, in one transaction. */
  // crosses tenants: the worker's sync, for whichever organization's source its job names
  async saveOutcome(document: DocumentEntity, language: string, outcome: DocumentOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM passages WHERE document_id = $1`, [document.id]);
      for (let start = 0; start < outcome.passages.length; start += PASSAGE_ROWS_PER_INSERT) {
        const rows = outcome.passages.slice(start, start + PASSAGE_ROWS_PER_INSERT);
        const params: unknown[] = [document.id, document.sourceId, language];
        const values = rows.map((row) => {
          params.push(row.position, row.startOffset, row.endOffset, row.text, row.embedding);
          const n = params.length;
          return `($1, $2, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $3::text, to_tsvector($3::text::regconfig, $${n - 1}::text), $${n}::real[])`;
        });
        await tx.query(
          `INSERT INTO passages (document_id, source_id, position, start_offset, end_offset, text, language, tsv,
                                 embedding)
           VALUES ${values.join(', ')}`,
          params,
        );
      }
      await tx.query(
        `UPDATE documents SET version = wanted_version, status = $2, error = $3, size = $4, embedded_size = $5,
                embedded = $6, passage_count = $7, synced_at = now()
         WHERE id = $1 AND wanted_version = $8`,
        [
          document.id,
          outcome.status,
          outcome.error,
          outcome.size,
          outcome.embeddedSize,
          outcome.embedded,
          outcome.passages.length,
          document.wantedVersion,
        ],
      );
    });
  }

  /** A source's documents, by name, as its organization sees them. */
  listBySource(source: { id: number; orgId: string }): Promise<DocumentEntity[]> {
    return withTenant(this.db, source, (tx) =>
      tx
        .getRepository(DocumentEntity)
        .find({ where: { sourceId: source.id }, order: { name: 'ASC', id: 'ASC' } }),
    );
  }
}
