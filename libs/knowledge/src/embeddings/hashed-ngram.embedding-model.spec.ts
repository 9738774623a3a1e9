import { embedMany } from 'ai';
import { hashedNgramEmbedding, hashedNgramEmbeddingModel } from './hashed-ngram.embedding-model';

const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index], 0);

describe('the builtin embedder', () => {
  it('is deterministic, 256 dimensions, unit length', () => {
    const a = hashedNgramEmbedding('Quarterly revenue grew');
    expect(a).toHaveLength(256);
    expect(hashedNgramEmbedding('Quarterly revenue grew')).toEqual(a);
    expect(dot(a, a)).toBeCloseTo(1, 6);
  });

  it('puts texts sharing words closer than unrelated ones', () => {
    const query = hashedNgramEmbedding('holiday policy');
    const near = hashedNgramEmbedding('Our holiday policy gives 25 days of paid holidays');
    const far = hashedNgramEmbedding('The database migration runs at midnight');
    expect(dot(query, near)).toBeGreaterThan(dot(query, far) + 0.2);
  });

  it('serves the AI SDK embedMany as an EmbeddingModelV3', async () => {
    const { embeddings } = await embedMany({ model: hashedNgramEmbeddingModel, values: ['a b', 'c d'] });
    expect(embeddings).toEqual([hashedNgramEmbedding('a b'), hashedNgramEmbedding('c d')]);
  });
});
