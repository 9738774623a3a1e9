import { Injectable } from '@nestjs/common';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { EmbeddingModelV3 } from '@ai-sdk/provider';
import { embedMany } from 'ai';
import { Settings } from '@app/config';
import { hashedNgramEmbeddingModel } from './hashed-ngram.embedding-model';

/** Scales a vector to length 1, so cosine similarity is a dot product in SQL. */
function normalize(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/**
 * Embeddings through the AI SDK: an OpenAI-compatible endpoint when EMBEDDINGS_BASE_URL is set, else the
 * builtin offline embedder. Vectors come back L2-normalised.
 */
@Injectable()
export class Embedder {
  readonly model: EmbeddingModelV3;

  constructor(settings: Settings) {
    this.model = settings.embeddingsBaseUrl
      ? createOpenAICompatible({
          name: 'embeddings',
          baseURL: settings.embeddingsBaseUrl,
          apiKey: settings.embeddingsApiKey,
        }).embeddingModel(settings.embeddingsModel)
      : hashedNgramEmbeddingModel;
  }

  async embed(values: string[], abortSignal?: AbortSignal): Promise<number[][]> {
    if (values.length === 0) return [];
    const { embeddings } = await embedMany({ model: this.model, values, maxParallelCalls: 2, abortSignal });
    return embeddings.map(normalize);
  }
}
