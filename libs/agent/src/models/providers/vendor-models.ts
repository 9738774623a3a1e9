import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { LanguageModelV3 } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import { resilienceMiddleware, RetryPolicy } from './resilience.middleware';
import { promptCacheMiddleware } from './prompt-cache';
import { toolImagesMiddleware } from './tool-images';

/** Where `openai:<model>` goes when OPENAI_BASE_URL is not set. */
const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The vendor models of CONTRACTS §1 through the Vercel AI SDK: `openai:<model>` on any OpenAI-compatible
 * chat-completions endpoint (OpenAI, vLLM, Ollama, LiteLLM), `anthropic:<model>` on the Messages API. Each is
 * wrapped in the resilience middleware (retries, timeouts, readable errors) and marks its requests for the
 * vendor's prompt cache (promptCacheMiddleware). Keys go only into request headers.
 */
export class VendorModels {
  private readonly logger = new Logger('VendorModels');
  private readonly models = new Map<string, LanguageModelV3>();
  private readonly policy: RetryPolicy;
  private openai?: ReturnType<typeof createOpenAICompatible>;
  private anthropic?: ReturnType<typeof createAnthropic>;

  constructor(private readonly settings: Settings) {
    this.policy = {
      maxRetries: settings.modelMaxRetries,
      baseDelayMs: settings.modelRetryBaseMs,
      maxDelayMs: settings.modelRetryMaxDelayMs,
      idleTimeoutMs: settings.modelIdleTimeoutMs,
    };
  }

  /** The model an agent's `model` names, or null when it is not a vendor model (`builtin`, unknown vendor). */
  languageModel(model: string): LanguageModelV3 | null {
    const cached = this.models.get(model);
    if (cached) return cached;
    const colon = model.indexOf(':');
    // Model ids may hold colons themselves (Ollama's `llama3:8b`): only the first one splits.
    const vendor = model.slice(0, colon);
    const id = model.slice(colon + 1);
    if (colon < 0 || !id) return null;
    let inner: LanguageModelV3;
    if (vendor === 'openai') {
      inner = wrapLanguageModel({
        model: this.openaiProvider().chatModel(id),
        middleware: [toolImagesMiddleware, promptCacheMiddleware('openai')],
      });
    } else if (vendor === 'anthropic') {
      inner = wrapLanguageModel({
        model: this.anthropicProvider().languageModel(id),
        middleware: promptCacheMiddleware('anthropic'),
      });
    } else return null;
    const secrets = [this.settings.openaiApiKey, this.settings.anthropicApiKey];
    const resilient = wrapLanguageModel({
      model: inner,
      middleware: resilienceMiddleware({
        label: model,
        policy: this.policy,
        secrets,
        warn: (message) => this.logger.warn(message),
      }),
    });
    this.models.set(model, resilient);
    return resilient;
  }

  private openaiProvider(): ReturnType<typeof createOpenAICompatible> {
    this.openai ??= createOpenAICompatible({
      name: 'openai',
      baseURL: this.settings.openaiBaseUrl ?? OPENAI_DEFAULT_BASE_URL,
      apiKey: this.settings.openaiApiKey,
      // Without it the stream carries no usage and the agent's budget would not count the tokens.
      includeUsage: true,
    });
    return this.openai;
  }

  private anthropicProvider(): ReturnType<typeof createAnthropic> {
    this.anthropic ??= createAnthropic({
      baseURL: this.settings.anthropicBaseUrl,
      // An empty key rather than none: the SDK would otherwise read the process environment itself.
      apiKey: this.settings.anthropicApiKey ?? '',
    });
    return this.anthropic;
  }
}
