import { LanguageModelV3 } from '@ai-sdk/provider';
import { Injectable } from '@nestjs/common';
import { BuiltinModel } from './builtin.model';

/** The agent names a model its service cannot reach: the reply ends as a model failure. */
export class ModelUnavailableError extends Error {}

/**
 * Resolves an agent's `model` (`builtin`, `openai:<model>`, `anthropic:<model>`) to an AI SDK LanguageModelV3:
 * every model, builtin or vendor, goes through the same step loop.
 */
@Injectable()
export class ModelProvider {
  private readonly builtin = new BuiltinModel();

  languageModel(model: string): LanguageModelV3 {
    if (model === 'builtin') return this.builtin;
    throw new ModelUnavailableError(`model ${model} is not available in this deployment`);
  }
}
