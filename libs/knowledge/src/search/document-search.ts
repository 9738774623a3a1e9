import { Injectable, OnModuleInit } from '@nestjs/common';
import { Settings } from '@app/config';
import { isRowId } from '@app/contracts';
import { PassageRow, PassageSearchRepository } from '@app/persistence';
import { Embedder } from '../embeddings/embedder';

/** Who searches, and within what (a run's scope and its message's source_ids / document_ids). */
interface SearchScope {
  orgId: string;
  userId: string | null;
  sourceIds?: number[] | null;
  documentIds?: string[] | null;
}

/** A passage found, as the tool answers it: the stored row without its id, and its fused score. */
type PassageHit = Omit<PassageRow, 'id'> & { score: number };

/** Reciprocal rank fusion constant (Cormack et al.): dampens the weight of the very first ranks. */
const RRF_K = 60;
/** Candidates each ranking contributes to the fusion. */
const CANDIDATES = 50;
/** Full-text matches re-ranked by vector when the visible passages are too many to scan them all. */
const RERANK_POOL = 500;
/** Full-text matches ranked at most, per query form (all terms, any term). */
const RANK_CAP = 3000;
const MAX_QUERY_TERMS = 32;

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
    private readonly passages: PassageSearchRepository,
    private readonly embedder: Embedder,
    private readonly settings: Settings,
  ) {}

  async onModuleInit(): Promise<void> {
    this.pgvector = await this.passages.hasPgvector();
  }

  async search(scope: SearchScope, query: string, topK: number): Promise<PassageHit[]> {
    const sources = await this.visibleSources(scope);
    if (sources.length === 0) return [];
    const sourceIds = sources.map((source) => source.id);
    const documentIds = scope.documentIds ? scope.documentIds.filter(isRowId) : null;
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
    const rows = await this.passages.passages(best.map(([id]) => id));
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
    return this.passages.visibleSources(scope.orgId, scope.userId, scope.sourceIds ?? null);
  }

  /** Passage ids by ts_rank; any term may match (ranking favours passages matching more of them). */
  private async fullText(
    sourceIds: number[],
    documentIds: string[] | null,
    terms: string[],
    languages: string[],
  ): Promise<string[]> {
    // Passages with every term are ranked first; passages with some terms are ranked among a bounded sample,
    // since ts_rank reads each candidate's tsvector and common words match a large share of a corpus.
    const rank = (operator: '&' | '|') =>
      this.passages.fullTextRanked(
        sourceIds,
        documentIds,
        terms.join(` ${operator} `),
        languages,
        RANK_CAP,
        RERANK_POOL,
      );
    const ids = await rank('&');
    if (ids.length < RERANK_POOL && terms.length > 1) {
      const seen = new Set(ids);
      ids.push(...(await rank('|')).filter((id) => !seen.has(id)).slice(0, RERANK_POOL - ids.length));
    }
    return ids;
  }

  /** Whether the visible passages are few enough to rank all of them by vector (counted up to the limit only). */
  private async fewEnoughToScan(sourceIds: number[], documentIds: string[] | null): Promise<boolean> {
    const limit = this.settings.searchExactScanLimit;
    return (await this.passages.countWithEmbedding(sourceIds, documentIds, limit + 1)) <= limit;
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
    if (this.pgvector) return this.passages.nearestByPgvector(sourceIds, documentIds, embedding, CANDIDATES);
    if (pool && pool.length === 0) return [];
    // The arrays travel in binary (array_send) and are compared here: a dot product in SQL over unnest()
    // costs about ten times more per row.
    const rows = await this.passages.embeddings(sourceIds, documentIds, pool);
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
function dot(binary: Buffer, vector: number[]): number {
  if (binary.readInt32BE(0) !== 1) return 0;
  const length = Math.min(binary.readInt32BE(12), vector.length);
  let sum = 0;
  for (let index = 0, offset = 20; index < length; index++, offset += 8) {
    if (binary.readInt32BE(offset) === 4) sum += binary.readFloatBE(offset + 4) * vector[index];
  }
  return sum;
}
