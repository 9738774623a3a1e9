import { LanguageModelV3 } from '@ai-sdk/provider';
import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { BuiltinModel } from './builtin.model';
import { VendorModels } from './vendor/vendor-models';

/** The agent names a model its service cannot reach: the reply ends as a model failure. */
export class ModelUnavailableError extends Error {}

/**
 * Resolves an agent's `model` (`builtin`, `openai:<model>`, `anthropic:<model>`) to an AI SDK LanguageModelV3:
 * every model, builtin or vendor, goes through the same step loop.
 */
@Injectable()
export class ModelProvider {
  private readonly builtin = new BuiltinModel();
  private readonly vendors: VendorModels;

  constructor(settings: Settings) {
    this.vendors = new VendorModels(settings);
  }

  languageModel(model: string): LanguageModelV3 {
    if (model === 'builtin') return this.builtin;
    const vendor = this.vendors.languageModel(model);
    if (vendor) return vendor;
    throw new ModelUnavailableError(`model ${model} is not available in this deployment`);
  }
}
