import { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { toolImagesAsUserMessage } from './tool-images';

describe('toolImagesAsUserMessage', () => {
  const toolMessage = (value: unknown): LanguageModelV3Prompt[number] =>
    ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'shot', output: value }],
    }) as LanguageModelV3Prompt[number];

  it('moves a tool result’s images to a user message right after it, leaving text in the result', () => {
    const prompt: LanguageModelV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'look' }] },
      toolMessage({
        type: 'content',
        value: [
          { type: 'text', text: 'a chart' },
          { type: 'image-data', data: 'AAAA', mediaType: 'image/png' },
        ],
      }),
    ];
    const moved = toolImagesAsUserMessage(prompt);
    expect(moved).toHaveLength(3);
    expect(moved[1]).toMatchObject({
      role: 'tool',
      content: [{ output: { type: 'text', value: 'a chart\n[image: in the next message]' } }],
    });
    expect(moved[2]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'An image returned by the tool shot:' },
        { type: 'file', mediaType: 'image/png', data: 'AAAA' },
      ],
    });
  });

  it('leaves a prompt without tool images as it was', () => {
    const prompt: LanguageModelV3Prompt = [toolMessage({ type: 'json', value: { a: 1 } })];
    expect(toolImagesAsUserMessage(prompt)).toEqual(prompt);
  });
});
