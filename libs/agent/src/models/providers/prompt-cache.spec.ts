import { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { anthropicCacheMarks, promptCacheMiddleware } from './prompt-cache';

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } };
const text = (value: string) => [{ type: 'text' as const, text: value }];

const followUp: LanguageModelV3CallOptions = {
  prompt: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: text('first') },
    { role: 'assistant', content: text('first answer') },
    { role: 'user', content: text('second') },
  ],
  tools: [
    { type: 'function', name: 'clock', inputSchema: { type: 'object' } },
    { type: 'function', name: 'web', inputSchema: { type: 'object' } },
  ],
};

describe('anthropicCacheMarks', () => {
  it('marks the instructions, the last tool and the message before the latest user message', () => {
    const marked = anthropicCacheMarks(followUp);
    expect(marked.prompt.map((message) => message.providerOptions)).toEqual([
      EPHEMERAL,
      undefined,
      EPHEMERAL,
      undefined,
    ]);
    expect(marked.tools?.map((tool) => (tool.type === 'function' ? tool.providerOptions : null))).toEqual([
      undefined,
      EPHEMERAL,
    ]);
    // The request it was given is left as it was.
    expect(followUp.prompt[0].providerOptions).toBeUndefined();
  });

  it('marks only the instructions of a first message, and nothing of a call without them or tools', () => {
    const first = anthropicCacheMarks({ prompt: followUp.prompt.slice(0, 2) });
    expect(first.prompt.map((message) => message.providerOptions)).toEqual([EPHEMERAL, undefined]);
    const bare = anthropicCacheMarks({ prompt: [{ role: 'user', content: text('hi') }] });
    expect(bare.prompt[0].providerOptions).toBeUndefined();
    expect(bare.tools).toBeUndefined();
  });
});

describe('promptCacheMiddleware for OpenAI-compatible endpoints', () => {
  const transform = (params: LanguageModelV3CallOptions) =>
    promptCacheMiddleware('openai').transformParams!({ type: 'stream', params, model: {} as never });

  it('sends the thread id the step loop gives as prompt_cache_key', async () => {
    const params = await transform({
      ...followUp,
      providerOptions: { parley: { promptCacheKey: 'thread-1' } },
    });
    expect(params.providerOptions?.openai).toEqual({ prompt_cache_key: 'thread-1' });
    expect(params.prompt).toBe(followUp.prompt);
  });

  it('leaves a call without a key (a summary, a moderation check) as it is', async () => {
    expect(await transform(followUp)).toBe(followUp);
  });
});
