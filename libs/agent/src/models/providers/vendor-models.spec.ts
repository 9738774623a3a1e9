import { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { Settings } from '@app/config';
import { FakeAnthropic } from '../../../../../test/support/fake-anthropic';
import { FAKE_USAGE, FakeOpenAI } from '../../../../../test/support/fake-openai';
import { VendorModels } from './vendor-models';

const CLOCK = {
  type: 'function' as const,
  name: 'clock',
  description: 'time',
  inputSchema: { type: 'object' as const, properties: {} },
};

const ask = (text: string): LanguageModelV3CallOptions => ({
  prompt: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text }] },
  ],
  tools: [CLOCK],
  toolChoice: { type: 'auto' },
  temperature: 0.3,
  maxOutputTokens: 256,
});

async function parts(models: VendorModels, model: string, options: LanguageModelV3CallOptions) {
  const { stream } = await models.languageModel(model)!.doStream(options);
  const collected: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) collected.push(next.value);
  return collected;
}

const textOf = (collected: LanguageModelV3StreamPart[]) =>
  collected.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');

describe('VendorModels against local vendor servers', () => {
  const openai = new FakeOpenAI('sk-openai-test');
  const anthropic = new FakeAnthropic('sk-ant-test');
  let models: VendorModels;

  beforeAll(async () => {
    await Promise.all([openai.start(), anthropic.start()]);
    models = new VendorModels(
      Object.assign(new Settings(), {
        openaiBaseUrl: openai.baseUrl,
        openaiApiKey: 'sk-openai-test',
        anthropicBaseUrl: anthropic.baseUrl,
        anthropicApiKey: 'sk-ant-test',
        modelRetryBaseMs: 10,
        modelIdleTimeoutMs: 500,
      }),
    );
  });

  afterAll(() => Promise.all([openai.close(), anthropic.close()]));

  it('resolves only vendor models, keeping colons of the model id', () => {
    expect(models.languageModel('builtin')).toBeNull();
    expect(models.languageModel('mistral:large')).toBeNull();
    expect(models.languageModel('openai:')).toBeNull();
    expect(models.languageModel('openai:llama3:8b')?.modelId).toBe('llama3:8b');
  });

  it.each(['openai:gpt-test', 'anthropic:claude-3-5-haiku-latest'])(
    '%s streams text word by word with usage',
    async (model) => {
      const collected = await parts(models, model, ask('hello there'));
      expect(collected.filter((part) => part.type === 'text-delta')).toHaveLength(4);
      expect(textOf(collected)).toBe('Vendor says: hello there');
      const finish = collected.find((part) => part.type === 'finish');
      expect(finish?.type === 'finish' && finish.usage.inputTokens.total).toBe(FAKE_USAGE.input);
      expect(finish?.type === 'finish' && finish.usage.outputTokens.total).toBe(FAKE_USAGE.output);
    },
  );

  it.each(['openai:gpt-test', 'anthropic:claude-3-5-haiku-latest'])(
    '%s asks for several tools in one step',
    async (model) => {
      const collected = await parts(models, model, ask('call clock {}\ncall clock {"zone":"UTC"}'));
      const calls = collected.filter((part) => part.type === 'tool-call');
      expect(
        calls.map((call) => call.type === 'tool-call' && [call.toolName, JSON.parse(call.input)]),
      ).toEqual([
        ['clock', {}],
        ['clock', { zone: 'UTC' }],
      ]);
    },
  );

  it('sends the key, the model options and the tools as each vendor expects', async () => {
    await parts(models, 'openai:gpt-test', ask('options please'));
    await parts(models, 'anthropic:claude-3-5-haiku-latest', ask('options please'));
    const sentOpenAI = openai.requests[openai.requests.length - 1];
    expect(sentOpenAI.headers.authorization).toBe('Bearer sk-openai-test');
    expect(sentOpenAI.body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      temperature: 0.3,
      max_tokens: 256,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'clock' } }],
    });
    const sentAnthropic = anthropic.requests[anthropic.requests.length - 1];
    expect(sentAnthropic.headers['x-api-key']).toBe('sk-ant-test');
    expect(sentAnthropic.body).toMatchObject({
      model: 'claude-3-5-haiku-latest',
      stream: true,
      temperature: 0.3,
      max_tokens: 256,
      system: [{ type: 'text', text: 'Be brief.' }],
      tools: [{ name: 'clock' }],
    });
  });

  it.each([
    ['openai:gpt-test', 'openai:gpt-test: the vendor refused the API key (401): Incorrect API key provided'],
    [
      'anthropic:claude-3-5-haiku-latest',
      'anthropic:claude-3-5-haiku-latest: the vendor refused the API key (401): Incorrect API key provided',
    ],
  ])('%s: a 401 is a readable error, not retried', async (model, message) => {
    await expect(parts(models, model, ask('status 401'))).rejects.toThrow(message);
  });

  it.each(['openai:gpt-test', 'anthropic:claude-3-5-haiku-latest'])(
    '%s: 429s and 500s are retried',
    async (model) => {
      expect(textOf(await parts(models, model, ask('status 429 2')))).toBe('Vendor says: status 429 2');
      expect(textOf(await parts(models, model, ask('status 500 1')))).toBe('Vendor says: status 500 1');
    },
  );

  it.each(['openai:gpt-test', 'anthropic:claude-3-5-haiku-latest'])(
    '%s: a stream cut before output is retried',
    async (model) => {
      expect(textOf(await parts(models, model, ask('cut-early 1')))).toBe('Vendor says: cut-early 1');
    },
  );

  it.each(['openai:gpt-test', 'anthropic:claude-3-5-haiku-latest'])(
    '%s: a stream cut after output ends with an error part',
    async (model) => {
      const collected = await parts(models, model, ask('cut'));
      expect(textOf(collected)).toBe('Partial answer');
      const error = collected.find((part) => part.type === 'error');
      expect(error?.type === 'error' && (error.error as Error).message).toMatch(
        new RegExp(`^${model}: the vendor's stream broke off`),
      );
    },
  );

  it.each(['openai:gpt-test', 'anthropic:claude-3-5-haiku-latest'])(
    '%s: a silent vendor times out',
    async (model) => {
      const collected = await parts(models, model, ask('hang'));
      const error = collected.find((part) => part.type === 'error');
      expect(error?.type === 'error' && (error.error as Error).message).toBe(
        `${model}: no answer from the vendor for 0.5 s`,
      );
    },
  );
});
