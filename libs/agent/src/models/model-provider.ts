import { LanguageModelV3 } from '@ai-sdk/provider';
import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { BuiltinModel } from './builtin.model';
import { VendorModels } from './providers/vendor-models';
import { traceModelCalls } from './traced-language-model';

/** The agent names a model its service cannot reach: the reply ends as a model failure. */
class ModelUnavailableError extends Error {}

/**
 * Resolves an agent's `model` (`builtin`, `openai:<model>`, `anthropic:<model>`) to an AI SDK LanguageModelV3:
 * every model, builtin or vendor, goes through the same step loop.
 */
@Injectable()
export class ModelProvider {
  private readonly builtin = new BuiltinModel();
  private readonly vendors: VendorModels;
  /** Model call spans only when traces are exported: otherwise not even a pass-through on the stream. */
  private readonly traced: boolean;

  constructor(settings: Settings) {
    this.vendors = new VendorModels(settings);
    this.traced = settings.otelExporterOtlpEndpoint !== undefined;
  }

  languageModel(model: string): LanguageModelV3 {
    const resolved = model === 'builtin' ? this.builtin : this.vendors.languageModel(model);
    if (!resolved) throw new ModelUnavailableError(`model ${model} is not available in this deployment`);
    return this.traced ? traceModelCalls(resolved, model) : resolved;
  }
}
