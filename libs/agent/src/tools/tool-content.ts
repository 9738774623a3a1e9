import { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';

/**
 * A tool result that holds images (an MCP tool's image content): stored with the tool call as it is, given
 * to vision-capable vendor models as image parts, and shown everywhere else (the builtin model, `events`, the
 * stream) with each image as a short placeholder, never its bytes.
 */
export interface ToolContentOutput {
  type: 'tool-content';
  parts: ToolContentPart[];
}

export type ToolContentPart =
  | { type: 'text'; text: string }
  /** `data`: the image, base64. */
  | { type: 'image'; mediaType: string; data: string };

export function isToolContentOutput(value: unknown): value is ToolContentOutput {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as ToolContentOutput).type === 'tool-content' &&
    Array.isArray((value as ToolContentOutput).parts)
  );
}

/** What an image is replaced with wherever its bytes do not belong. */
function imagePlaceholder(part: { mediaType: string; data: string }): string {
  return `[image ${part.mediaType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`;
}

/** The result as text: its text parts, each image a placeholder. */
export function toolContentText(output: ToolContentOutput): string {
  return output.parts.map((part) => (part.type === 'text' ? part.text : imagePlaceholder(part))).join('\n');
}

/** A tool output fit for `events` and the stream: images become placeholders, anything else is unchanged. */
export function withoutImageBytes(output: unknown): unknown {
  return isToolContentOutput(output) ? toolContentText(output) : output;
}

/** The output as the model prompt carries it (the AI SDK's tool-result content). */
export function toolContentForModel(output: ToolContentOutput): LanguageModelV3ToolResultOutput {
  return {
    type: 'content',
    value: output.parts.map((part) =>
      part.type === 'text'
        ? { type: 'text' as const, text: part.text }
        : { type: 'image-data' as const, data: part.data, mediaType: part.mediaType },
    ),
  };
}
