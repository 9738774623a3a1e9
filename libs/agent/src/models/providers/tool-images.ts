import { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { LanguageModelMiddleware } from 'ai';

/**
 * OpenAI-compatible chat completions take images in user messages only: a tool message is text. So the images
 * of a tool result move to a user message right after the tool results, and the result itself says where
 * they went. (Anthropic's Messages API takes them inside the tool result: its prompt is left as it is.)
 */
export function toolImagesAsUserMessage(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const moved: LanguageModelV3Prompt = [];
  for (const message of prompt) {
    if (message.role !== 'tool') {
      moved.push(message);
      continue;
    }
    const images: Extract<LanguageModelV3Message, { role: 'user' }>['content'] = [];
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || part.output.type !== 'content') return part;
      const texts: string[] = [];
      for (const item of part.output.value) {
        if (item.type === 'text') texts.push(item.text);
        else if (item.type === 'image-data') {
          images.push({ type: 'text', text: `An image returned by the tool ${part.toolName}:` });
          images.push({ type: 'file', mediaType: item.mediaType, data: item.data });
          texts.push('[image: in the next message]');
        }
      }
      return { ...part, output: { type: 'text' as const, value: texts.join('\n') } };
    });
    moved.push({ ...message, content });
    if (images.length > 0) moved.push({ role: 'user', content: images });
  }
  return moved;
}

export const toolImagesMiddleware: LanguageModelMiddleware = {
  specificationVersion: 'v3',
  transformParams: async ({ params }) => ({ ...params, prompt: toolImagesAsUserMessage(params.prompt) }),
};
