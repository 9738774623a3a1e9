import { LanguageModelV3CallOptions, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { LanguageModelMiddleware } from 'ai';

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

const withCacheMark = <T extends { providerOptions?: SharedV3ProviderOptions }>(item: T): T => ({
  ...item,
  providerOptions: { ...item.providerOptions, ...EPHEMERAL },
});

/**
 * Anthropic's cache breakpoints (CONTRACTS §24) on the stable prefix of a request: the instructions (the system
 * message), the tool definitions (the last tool closes them) and the older history (the message right before the
 * latest user message). A follow-up in the same thread sends the same prefix up to that message and its own newer
 * turns after it, so the vendor reads the prefix from its cache; a step after a tool round reuses it too. Three
 * of the four breakpoints Anthropic allows.
 */
export function anthropicCacheMarks(params: LanguageModelV3CallOptions): LanguageModelV3CallOptions {
  const prompt = [...params.prompt];
  const system = prompt.findIndex((message) => message.role === 'system');
  if (system >= 0) prompt[system] = withCacheMark(prompt[system]);
  const latestUser = prompt.map((message) => message.role).lastIndexOf('user');
  const older = latestUser - 1;
  if (older >= 0 && prompt[older].role !== 'system') prompt[older] = withCacheMark(prompt[older]);
  const last = params.tools?.length ? params.tools.length - 1 : -1;
  const tools = params.tools?.map((tool, index) =>
    index === last && tool.type === 'function' ? withCacheMark(tool) : tool,
  );
  return { ...params, prompt, tools };
}

/** What the step loop asks to key the cache by: the thread (model-step's `providerOptions.parley`). */
function promptCacheKey(params: LanguageModelV3CallOptions): string | undefined {
  const key = params.providerOptions?.parley?.promptCacheKey;
  return typeof key === 'string' ? key : undefined;
}

/**
 * Marks requests for the vendor's prompt cache: Anthropic's `cache_control` breakpoints, or, on OpenAI-compatible
 * endpoints (whose caching is automatic on the prefix), `prompt_cache_key` = the thread id, so a thread's calls
 * land where its prefix is cached.
 */
export function promptCacheMiddleware(vendor: 'openai' | 'anthropic'): LanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      if (vendor === 'anthropic') return anthropicCacheMarks(params);
      const key = promptCacheKey(params);
      if (!key) return params;
      // Options under the provider's own name that it does not know go into the request body as they are.
      return {
        ...params,
        providerOptions: {
          ...params.providerOptions,
          openai: { ...params.providerOptions?.openai, prompt_cache_key: key },
        },
      };
    },
  };
}
