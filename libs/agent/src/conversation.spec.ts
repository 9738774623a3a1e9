import { MessageEntity, RunStepEntity, ToolCallEntity } from '@app/persistence';
import {
  buildPrompt,
  idempotencyKey,
  instructionsWithTools,
  parseArguments,
  SUMMARY_HEADING,
} from './conversation';
import { AgentTool } from './tools/tool';

const message = (role: 'user' | 'assistant', content: string): MessageEntity =>
  Object.assign(new MessageEntity(), { role, content });

describe('buildPrompt', () => {
  it('drops the oldest turns to fit the context budget, never the newest', () => {
    const history = [
      message('user', 'a'.repeat(400)),
      message('assistant', 'b'.repeat(400)),
      message('user', 'c'.repeat(800)),
    ];
    const prompt = buildPrompt({
      instructions: 'Be brief.',
      history,
      steps: [],
      results: new Map(),
      contextBudgetTokens: 150,
    });
    expect(prompt.map((turn) => turn.role)).toEqual(['system', 'user']);
    expect(prompt[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'c'.repeat(800) }] });
    const roomy = buildPrompt({
      instructions: '',
      history,
      steps: [],
      results: new Map(),
      contextBudgetTokens: 1000,
    });
    expect(roomy.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
  });

  it("gives the thread's summary after the instructions, and counts it against the context budget", () => {
    const history = [message('user', 'a'.repeat(400)), message('user', 'b'.repeat(40))];
    const prompt = buildPrompt({
      instructions: 'Be brief.',
      summary: 'The user likes kites.',
      history,
      steps: [],
      results: new Map(),
      contextBudgetTokens: 1000,
    });
    expect(prompt[0]).toEqual({
      role: 'system',
      content: `Be brief.\n\n${SUMMARY_HEADING}\nThe user likes kites.`,
    });
    expect(prompt).toHaveLength(3);
    // Without instructions the summary is the whole system prompt; a long summary leaves less for the turns.
    const tight = buildPrompt({
      instructions: '',
      summary: 's'.repeat(400),
      history,
      steps: [],
      results: new Map(),
      contextBudgetTokens: 150,
    });
    expect(tight[0]).toEqual({ role: 'system', content: `${SUMMARY_HEADING}\n${'s'.repeat(400)}` });
    expect(tight.map((turn) => turn.role)).toEqual(['system', 'user']);
  });

  it("appends the reply's finished steps with their stored tool results", () => {
    const step = Object.assign(new RunStepEntity(), {
      messageId: 'm',
      step: 1,
      text: '',
      toolCalls: [{ callId: 'c1', name: 'clock', arguments: '{}' }],
    });
    const result = Object.assign(new ToolCallEntity(), { output: 'not available', isError: true });
    const prompt = buildPrompt({
      instructions: '',
      history: [message('user', 'hi')],
      steps: [step],
      results: new Map([[idempotencyKey('m', 1, 'c1'), result]]),
      contextBudgetTokens: 1000,
    });
    expect(prompt.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'clock', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'clock',
            output: { type: 'error-text', value: 'not available' },
          },
        ],
      },
    ]);
  });

  it('reads tool arguments as an object only', () => {
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseArguments('')).toEqual({});
    expect(parseArguments('[1]')).toBeNull();
    expect(parseArguments('{oops')).toBeNull();
  });

  it("gives a user message's attached files after its text: their text, then their images as file parts", () => {
    const question = Object.assign(message('user', 'What is in these?'), { id: 'q1' });
    const image = { name: 'dot.png', mediaType: 'image/png', data: Buffer.from([137, 80, 78, 71]) };
    const prompt = buildPrompt({
      instructions: '',
      history: [question],
      attachments: new Map([['q1', { text: 'Attached file "a.txt": hello', images: [image] }]]),
      steps: [],
      results: new Map(),
      contextBudgetTokens: 1000,
    });
    expect(prompt).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'text', text: 'Attached file "a.txt": hello' },
          {
            type: 'file',
            mediaType: 'image/png',
            filename: 'dot.png',
            data: new Uint8Array([137, 80, 78, 71]),
          },
        ],
      },
    ]);
  });
});

describe('instructionsWithTools', () => {
  const tool = (name: string, systemPrompt?: string): AgentTool => ({
    name,
    permission: name,
    description: name,
    parameters: { type: 'object', properties: {} },
    systemPrompt,
    execute: async () => null,
  });

  it('appends what offered tools add to the system prompt', () => {
    expect(instructionsWithTools('Be kind.', [tool('clock'), tool('skill_read', 'Skills: a')])).toBe(
      'Be kind.\n\nSkills: a',
    );
    expect(instructionsWithTools('', [tool('clock')])).toBe('');
  });
});
