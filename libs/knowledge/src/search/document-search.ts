import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { Embedder } from '../embeddings/embedder';

/** Who searches, and within what (a run's scope and its message's source_ids / document_ids). */
export interface SearchScope {
  orgId: string;
  userId: string | null;
  sourceIds?: number[] | null;
  documentIds?: string[] | null;
}

export interface PassageHit {
  document_id: string;
  document_name: string;
  source_id: number;
  source_pid: string;
  position: number;
  text: string;
  score: number;
}

/** Reciprocal rank fusion constant (Cormack et al.): dampens the weight of the very first ranks. */
const RRF_K = 60;
/** Candidates each ranking contributes to the fusion. */
const CANDIDATES = 50;
/** Full-text matches re-ranked by vector when the visible passages are too many to scan them all. */
const RERANK_POOL = 500;
/** Full-text matches ranked at most, per query form (all terms, any term). */
const RANK_CAP = 3000;
const MAX_QUERY_TERMS = 32;

/** Passages of the sources $1 (and documents $2, when given) that have an embedding. */
const VISIBLE_WITH_EMBEDDING = `p.source_id = ANY($1::int[]) AND ($2::uuid[] IS NULL OR p.document_id = ANY($2::uuid[]))
  AND p.embedding IS NOT NULL`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Hybrid search over passages: PostgreSQL full-text (GIN-indexed tsvector, ts_rank, each source's
 * language) fused by reciprocal rank with a vector ranking. The vector ranking is exact: pgvector's
 * distance on the stored arrays when the server has the extension; else a dot product over every visible
 * passage while there are at most SEARCH_EXACT_SCAN_LIMIT of them, and over the best full-text matches
 * beyond that.
 */
@Injectable()
export class DocumentSearch implements OnModuleInit {
  private pgvector = false;

  constructor(
    private readonly db: DataSource,
    private readonly embedder: Embedder,
    private readonly settings: Settings,
  ) {}

  async onModuleInit(): Promise<void> {
    this.pgvector = await hasPgvector(this.db);
  }

  async search(scope: SearchScope, query: string, topK: number): Promise<PassageHit[]> {
    const sources = await this.visibleSources(scope);
    if (sources.length === 0) return [];
    const sourceIds = sources.map((source) => source.id);
    const documentIds = scope.documentIds ? scope.documentIds.filter((id) => UUID.test(id)) : null;
    if (documentIds && documentIds.length === 0) return [];

    const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, MAX_QUERY_TERMS);
    const languages = [...new Set(sources.map((source) => source.language))];
    // The full-text ranking, the query's embedding and (without pgvector) the count that picks the vector
    // ranking's pool do not depend on each other: they run at once.
    const [textRanked, [embedding], exact] = await Promise.all([
      terms.length > 0 ? this.fullText(sourceIds, documentIds, terms, languages) : Promise.resolve([]),
      this.embedder.embed([query]),
      this.pgvector ? Promise.resolve(true) : this.fewEnoughToScan(sourceIds, documentIds),
    ]);
    const vectorRanked = await this.vector(sourceIds, documentIds, embedding, exact ? null : textRanked);

    const scores = new Map<string, number>();
    for (const ranking of [textRanked.slice(0, CANDIDATES), vectorRanked]) {
      ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
    }
    const best = [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || Number(a[0]) - Number(b[0]))
      .slice(0, topK);
    if (best.length === 0) return [];
    const rows = (await this.db.query(
      `SELECT p.id::text AS id, p.document_id, d.name AS document_name, p.source_id, s.pid AS source_pid,
              p.position, p.text
       FROM passages p JOIN documents d ON d.id = p.document_id JOIN sources s ON s.id = p.source_id
       WHERE p.id = ANY($1::bigint[])`,
      [best.map(([id]) => id)],
    )) as (Omit<PassageHit, 'score'> & { id: string })[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return best.flatMap(([id, score]) => {
      const row = byId.get(id);
      if (!row) return [];
      const { id: _id, ...hit } = row;
      return [{ ...hit, score: Number(score.toFixed(6)) }];
    });
  }

  /** Live sources the scope may see: the organization's, and its end user's private ones. */
  private visibleSources(scope: SearchScope): Promise<{ id: number; language: string }[]> {
    return this.db.query(
      `SELECT id, language FROM sources
       WHERE org_id = $1 AND archived_at IS NULL
         AND (scope = 'organization' OR (scope = 'private' AND created_by = $2))
         AND ($3::int[] IS NULL OR id = ANY($3::int[]))`,
      [scope.orgId, scope.userId, scope.sourceIds ?? null],
    );
  }

  /** Passage ids by ts_rank; any term may match (ranking favours passages matching more of them). */
  private async fullText(
    sourceIds: number[],
    documentIds: string[] | null,
    terms: string[],
    languages: string[],
  ): Promise<string[]> {
    // Each language's query is parsed once (not per row) and matched through the GIN index. Passages with
    // every term are ranked first; passages with some terms are ranked among a bounded sample, since
    // ts_rank reads each candidate's tsvector and common words match a large share of a corpus.
    const rank = (operator: '&' | '|', cap: number) =>
      this.db.query(
        `WITH q AS (
           SELECT language, to_tsquery(language::regconfig, $3) AS query FROM unnest($4::text[]) AS language
         ),
         matched AS (
           SELECT p.id, p.tsv, q.query FROM passages p JOIN q ON q.language = p.language
           WHERE p.source_id = ANY($1::int[]) AND ($2::uuid[] IS NULL OR p.document_id = ANY($2::uuid[]))
             AND p.tsv @@ q.query
           LIMIT ${cap}
         )
         SELECT id::text AS id FROM matched ORDER BY ts_rank(tsv, query) DESC, id LIMIT ${RERANK_POOL}`,
        [sourceIds, documentIds, terms.join(` ${operator} `), languages],
      ) as Promise<{ id: string }[]>;
    const rows = await rank('&', RANK_CAP);
    if (rows.length < RERANK_POOL && terms.length > 1) {
      const seen = new Set(rows.map((row) => row.id));
      rows.push(
        ...(await rank('|', RANK_CAP)).filter((row) => !seen.has(row.id)).slice(0, RERANK_POOL - rows.length),
      );
    }
    return rows.map((row) => row.id);
  }

  /** Whether the visible passages are few enough to rank all of them by vector (counted up to the limit only). */
  private async fewEnoughToScan(sourceIds: number[], documentIds: string[] | null): Promise<boolean> {
    const [{ count }] = (await this.db.query(
      `SELECT count(*)::int AS count FROM (SELECT 1 FROM passages p WHERE ${VISIBLE_WITH_EMBEDDING} LIMIT $3) visible`,
      [sourceIds, documentIds, this.settings.searchExactScanLimit + 1],
    )) as { count: number }[];
    return count <= this.settings.searchExactScanLimit;
  }

  /**
   * Passage ids by cosine similarity to the query (vectors are unit length: a dot product), among every visible
   * passage, or only among `pool` (the best full-text matches) when there are too many to scan.
   */
  private async vector(
    sourceIds: number[],
    documentIds: string[] | null,
    embedding: number[],
    pool: string[] | null,
  ): Promise<string[]> {
    if (this.pgvector) {
      const rows = (await this.db.query(
        `SELECT p.id::text AS id FROM passages p WHERE ${VISIBLE_WITH_EMBEDDING}
         ORDER BY p.embedding::vector <=> $3::real[]::vector LIMIT ${CANDIDATES}`,
        [sourceIds, documentIds, embedding],
      )) as { id: string }[];
      return rows.map((row) => row.id);
    }
    if (pool && pool.length === 0) return [];
    // The arrays travel in binary (array_send) and are compared here: a dot product in SQL over unnest()
    // costs about ten times more per row.
    const rows = (await this.db.query(
      `SELECT p.id::text AS id, array_send(p.embedding) AS embedding
       FROM passages p WHERE ${VISIBLE_WITH_EMBEDDING} AND ($3::bigint[] IS NULL OR p.id = ANY($3::bigint[]))`,
      [sourceIds, documentIds, pool],
    )) as { id: string; embedding: Buffer }[];
    return rows
      .map((row) => ({ id: row.id, similarity: dot(row.embedding, embedding) }))
      .sort((a, b) => b.similarity - a.similarity || Number(a.id) - Number(b.id))
      .slice(0, CANDIDATES)
      .map((row) => row.id);
  }
}

/**
 * Dot product of a one-dimensional real[] in PostgreSQL's binary array format (ndim, flags, element type,
 * then size and lower bound per dimension; each element a length and a big-endian float4) with `vector`.
 */
export function dot(binary: Buffer, vector: number[]): number {
  if (binary.readInt32BE(0) !== 1) return 0;
  const length = Math.min(binary.readInt32BE(12), vector.length);
  let sum = 0;
  for (let index = 0, offset = 20; index < length; index++, offset += 8) {
    if (binary.readInt32BE(offset) === 4) sum += binary.readFloatBE(offset + 4) * vector[index];
  }
  return sum;
}

/** Whether the database has pgvector installed (the migration enables it where the server offers it). */
export async function hasPgvector(db: DataSource): Promise<boolean> {
  const rows = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)) as unknown[];
  return rows.length > 0;
}
