import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';

/** A passage of a search result, with its document and source. */
export interface PassageRow {
  id: string;
  document_id: string;
  document_name: string;
  source_id: number;
  source_pid: string;
  position: number;
  text: string;
}

/** Passages of the sources $1 (and documents $2, when given) that have an embedding. */
const VISIBLE_WITH_EMBEDDING = `p.source_id = ANY($1::int[]) AND ($2::uuid[] IS NULL OR p.document_id = ANY($2::uuid[]))
  AND p.embedding IS NOT NULL`;

/**
 * Live sources of organization $1 that end user $2 (or none) may see, among $3 when given: the optional id filter
 * is one array parameter, so the statement stays one text. Every search of a run asks it.
 */
const VISIBLE_SOURCES = preparedStatement({
  name: 'passage_search_visible_sources',
  text: `SELECT id, language FROM sources
         WHERE org_id = $1 AND archived_at IS NULL
           AND (scope = 'organization' OR (scope = 'private' AND created_by = $2))
           AND ($3::int[] IS NULL OR id = ANY($3::int[]))`,
});

/**
 * The statements of passage search (libs/knowledge DocumentSearch ranks with them). They are hand-written
 * because they use what TypeORM's query builder does not express: tsquery/ts_rank per source language, array
 * parameters (ANY), pgvector's distance operator and binary array transfer (array_send).
 */
@Injectable()
export class PassageSearchRepository {
  constructor(private readonly db: DataSource) {}

  /** Whether the database has pgvector installed (the migration enables it where the server offers it). */
  // crosses tenants: asks the server's catalogue whether pgvector is installed, nobody's rows
  async hasPgvector(): Promise<boolean> {
    // pg_extension is a catalog table, not an entity.
    const rows = (await this.db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)) as unknown[];
    return rows.length > 0;
  }

  /** Live sources the scope may see: the organization's, and its end user's private ones. */
  visibleSources(
    orgId: string,
    userId: string | null,
    sourceIds: number[] | null,
  ): Promise<{ id: number; language: string }[]> {
    // Under the wall, in its own round trip: the passages searched next are of these sources only.
    return runPreparedAsTenant(this.db, { orgId }, VISIBLE_SOURCES, [orgId, userId, sourceIds]);
  }

  /**
   * Passage ids by ts_rank for `tsquery` parsed in each of `languages`, among at most `cap` matches, the best
   * `limit`. Each language's query is parsed once (not per row) and matched through the GIN index.
   */
  // crosses tenants: the worker's search tool, over sources visibleSources found for the run's organization
  async fullTextRanked(
    sourceIds: number[],
    documentIds: string[] | null,
    tsquery: string,
    languages: string[],
    cap: number,
    limit: number,
  ): Promise<string[]> {
    // to_tsquery with a per-row regconfig and ts_rank have no query-builder form.
    const rows = (await this.db.query(
      `WITH q AS (
         SELECT language, to_tsquery(language::regconfig, $3) AS query FROM unnest($4::text[]) AS language
       ),
       matched AS (
         SELECT p.id, p.tsv, q.query FROM passages p JOIN q ON q.language = p.language
         WHERE p.source_id = ANY($1::int[]) AND ($2::uuid[] IS NULL OR p.document_id = ANY($2::uuid[]))
           AND p.tsv @@ q.query
         LIMIT ${Math.trunc(cap)}
       )
       SELECT id::text AS id FROM matched ORDER BY ts_rank(tsv, query) DESC, id LIMIT ${Math.trunc(limit)}`,
      [sourceIds, documentIds, tsquery, languages],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** The visible passages with an embedding, counted up to `upTo` only (the count stops there). */
  // crosses tenants: the worker's search tool, over sources visibleSources found for the run's organization
  async countWithEmbedding(sourceIds: number[], documentIds: string[] | null, upTo: number): Promise<number> {
    // A LIMIT inside the count bounds its cost; the query builder would count every row.
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM (SELECT 1 FROM passages p WHERE ${VISIBLE_WITH_EMBEDDING} LIMIT $3) visible`,
      [sourceIds, documentIds, upTo],
    )) as { count: number }[];
    return count;
  }

  /** The `limit` visible passage ids nearest to `embedding` by pgvector's cosine distance. */
  // crosses tenants: the worker's search tool, over sources visibleSources found for the run's organization
  async nearestByPgvector(
    sourceIds: number[],
    documentIds: string[] | null,
    embedding: number[],
    limit: number,
  ): Promise<string[]> {
    // The <=> operator and the real[] to vector cast are pgvector's, unknown to the query builder.
    const rows = (await this.db.query(
      `SELECT p.id::text AS id FROM passages p WHERE ${VISIBLE_WITH_EMBEDDING}
       ORDER BY p.embedding::vector <=> $3::real[]::vector LIMIT ${Math.trunc(limit)}`,
      [sourceIds, documentIds, embedding],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** The visible passages' embeddings in PostgreSQL's binary array format, only those in `pool` when given. */
  // crosses tenants: the worker's search tool, over sources visibleSources found for the run's organization
  embeddings(
    sourceIds: number[],
    documentIds: string[] | null,
    pool: string[] | null,
  ): Promise<{ id: string; embedding: Buffer }[]> {
    // array_send keeps the arrays binary on the wire: parsing them as text costs more than the comparison.
    return this.db.query(
      `SELECT p.id::text AS id, array_send(p.embedding) AS embedding
       FROM passages p WHERE ${VISIBLE_WITH_EMBEDDING} AND ($3::bigint[] IS NULL OR p.id = ANY($3::bigint[]))`,
      [sourceIds, documentIds, pool],
    );
  }

  /** The passages `ids` with their document's name and source's pid. */
  // crosses tenants: the worker's search tool, over passages it ranked in the run's organization's sources
  passages(ids: string[]): Promise<PassageRow[]> {
    // One statement over three tables by an id array; the entities have no relations declared to join on.
    return this.db.query(
      `SELECT p.id::text AS id, p.document_id, d.name AS document_name, p.source_id, s.pid AS source_pid,
              p.position, p.text
       FROM passages p JOIN documents d ON d.id = p.document_id JOIN sources s ON s.id = p.source_id
       WHERE p.id = ANY($1::bigint[])`,
      [ids],
    );
  }
}
