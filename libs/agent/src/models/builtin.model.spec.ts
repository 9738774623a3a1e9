import {
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { BuiltinModel, parseDirectives, splitWords, SUMMARY_TASK } from './builtin.model';

const clock = { type: 'function' as const, name: 'clock', inputSchema: { type: 'object' as const } };

async function run(options: Partial<LanguageModelV3CallOptions> & { prompt: LanguageModelV3Prompt }) {
  const { stream } = await new BuiltinModel().doStream({ tools: [clock], ...options });
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

const user = (text: string): LanguageModelV3Prompt[number] => ({
  role: 'user',
  content: [{ type: 'text', text }],
});
const deltas = (parts: LanguageModelV3StreamPart[]) =>
  parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));

describe('BuiltinModel', () => {
  it("writes a thread's summary unstreamed: the first twelve words of each entry, counted a token a word", async () => {
    const transcript = 'user: /say one two\n\nassistant: ' + 'word '.repeat(20).trim();
    const result = await new BuiltinModel().doGenerate({
      prompt: [{ role: 'system', content: 'Summarize.' }, user(transcript)],
      providerOptions: { parley: { task: SUMMARY_TASK } },
    });
    const summary = 'user: /say one two\nassistant: ' + 'word '.repeat(11).trim() + ' …';
    expect(result.content).toEqual([{ type: 'text', text: summary }]);
    expect(result.usage.inputTokens.total).toBe(25);
    expect(result.usage.outputTokens.total).toBe(17);
    // Anything else is asked of it streamed.
    await expect(new BuiltinModel().doGenerate({ prompt: [user('hi')] })).rejects.toThrow('only streams');
  });

  it('answers a plain message with one delta per word', async () => {
    const parts = await run({ prompt: [user('hello there world')] });
    expect(deltas(parts)).toEqual(['You ', 'said: ', 'hello ', 'there ', 'world']);
    const finish = parts.find((part) => part.type === 'finish');
    expect(finish).toMatchObject({
      finishReason: { unified: 'stop' },
      usage: { outputTokens: { total: 5 } },
    });
  });

  it('says exactly the /say text, and keeps its spacing', async () => {
    const parts = await run({ prompt: [user('/say  Hi,  you there ')] });
    expect(deltas(parts).join('')).toBe(' Hi,  you there ');
    expect(deltas(parts)).toHaveLength(3);
  });

  it('calls one /tool per round, then answers with each output', async () => {
    const prompt: LanguageModelV3Prompt = [user('/tool clock {}\n/tool memory_read {"path":"a"}')];
    const first = await run({ prompt });
    expect(first.find((part) => part.type === 'tool-call')).toMatchObject({ toolName: 'clock', input: '{}' });
    prompt.push(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'clock', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'clock',
            output: { type: 'json', value: 'T' },
          },
        ],
      },
    );
    const second = await run({ prompt });
    expect(second.find((part) => part.type === 'tool-call')).toMatchObject({
      toolName: 'memory_read',
      input: '{"path":"a"}',
    });
    prompt.push(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'memory_read', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_2',
            toolName: 'memory_read',
            output: { type: 'error-text', value: 'tool memory_read is not available' },
          },
        ],
      },
    );
    const third = await run({ prompt });
    expect(deltas(third).join('')).toBe(
      'Tool clock returned "T".\nTool memory_read returned tool memory_read is not available.',
    );
  });

  it('loops on clock until no tools are offered', async () => {
    const withTools = await run({ prompt: [user('/loop')] });
    expect(withTools.find((part) => part.type === 'tool-call')).toMatchObject({ toolName: 'clock' });
    const atCap = await run({ prompt: [user('/loop')], tools: [] });
    expect(atCap.some((part) => part.type === 'tool-call')).toBe(false);
    expect(deltas(atCap).length).toBeGreaterThan(0);
  });

  it('puts questions and structured output in the finish metadata', async () => {
    const parts = await run({ prompt: [user('/ask Which one? | A | B\n/json {"a":1}')] });
    expect(parts.find((part) => part.type === 'finish')).toMatchObject({
      providerMetadata: {
        parley: { questions: [{ prompt: 'Which one?', options: ['A', 'B'] }], structuredOutput: { a: 1 } },
      },
    });
  });

  it('fails on /fail with an error part', async () => {
    const parts = await run({ prompt: [user('/fail')] });
    expect(parts.find((part) => part.type === 'error')).toBeDefined();
  });

  it('waits between deltas on /sleep and stops when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('cancelled')), 100);
    await expect(
      run({ prompt: [user('/sleep 1000\n/say a b c')], abortSignal: controller.signal }),
    ).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('parses directives only at the start of a line', () => {
    const directives = parseDirectives('please /say no\n/sleep 20\n/tool web {"q":"x"}');
    expect(directives).toMatchObject({
      say: null,
      sleepMs: 20,
      tools: [{ name: 'web', input: '{"q":"x"}' }],
    });
    expect(splitWords('')).toEqual([]);
  });
});
