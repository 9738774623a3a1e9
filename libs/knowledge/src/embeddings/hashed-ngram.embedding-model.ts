import { EmbeddingModelV3 } from '@ai-sdk/provider';

const BUILTIN_EMBEDDING_DIMENSIONS = 256;

/** 32-bit FNV-1a. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The builtin offline embedder: character trigrams of each lower-cased word (with word boundaries) and the
 * words themselves, hashed with a sign into 256 dimensions, L2-normalised. Deterministic, no network; texts
 * sharing words and word pieces land close together.
 */
export function hashedNgramEmbedding(text: string, dimensions = BUILTIN_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    vector[hash % dimensions] += hash & 0x80000000 ? -weight : weight;
  };
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    add(`w:${word}`, 2);
    const padded = `<${word}>`;
    for (let index = 0; index + 3 <= padded.length; index++) add(padded.slice(index, index + 3), 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** The builtin embedder as an AI SDK embedding model, so it is used exactly like a vendor's. */
export const hashedNgramEmbeddingModel: EmbeddingModelV3 = {
  specificationVersion: 'v3',
  provider: 'parley',
  modelId: `hashed-ngrams-${BUILTIN_EMBEDDING_DIMENSIONS}`,
  maxEmbeddingsPerCall: Infinity,
  supportsParallelCalls: true,
  doEmbed: async ({ values }) => ({
    embeddings: values.map((value) => hashedNgramEmbedding(value)),
    warnings: [],
  }),
};
