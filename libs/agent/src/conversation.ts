import { JSONValue, LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { MessageEntity, RunStepEntity, ToolCallEntity } from '@app/persistence';
import type { AgentTool } from './tools/tool';
import { isToolContentOutput, toolContentForModel } from './tools/tool-content';

/** What a user message's attached files give the model: their text (within a budget) and their images. */
export interface MessageAttachments {
  text: string;
  images: { name: string; mediaType: string; data: Buffer }[];
}

/** What introduces a thread's summary in the system prompt. */
export const SUMMARY_HEADING = 'Summary of the conversation before the messages below:';

/** A rough token count for the context budget (about four characters a token for most tokenizers). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** A tool call's arguments as an object, or null when the model sent something else. */
export function parseArguments(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw || '{}');
    } catch {
      return null;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export const idempotencyKey = (messageId: string, step: number, callId: string): string =>
  `${messageId}:${step}:${callId}`;

/** The agent's instructions followed by what the offered tools add to the system prompt. */
export function instructionsWithTools(instructions: string, offered: AgentTool[]): string {
  return [instructions, ...offered.map((tool) => tool.systemPrompt).filter((text): text is string => !!text)]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The model's prompt for the next step: the agent's instructions as the system prompt (with the thread's summary
 * of its older messages, when it has one), the thread up to the reply's own user message (oldest turns dropped
 * to fit the context budget, never the newest), then this reply's finished steps with their tool results.
 */
export function buildPrompt(input: {
  instructions: string;
  /** The thread's latest summary (CONTRACTS §19): it stands for the messages before `history`. */
  summary?: string | null;
  history: MessageEntity[];
  /** Files attached to user messages, by message id: given to the model after the message. */
  attachments?: ReadonlyMap<string, MessageAttachments>;
  steps: RunStepEntity[];
  results: Map<string, ToolCallEntity>;
  contextBudgetTokens: number;
}): LanguageModelV3Prompt {
  const turns: LanguageModelV3Message[] = [];
  for (const message of input.history) {
    if (message.role === 'user') {
      const attached = input.attachments?.get(message.id);
      turns.push({
        role: 'user',
        content: [
          { type: 'text', text: message.content },
          ...(attached?.text ? [{ type: 'text' as const, text: attached.text }] : []),
          ...(attached?.images ?? []).map((image) => ({
            type: 'file' as const,
            mediaType: image.mediaType,
            filename: image.name,
            data: new Uint8Array(image.data),
          })),
        ],
      });
    } else if (message.content)
      turns.push({ role: 'assistant', content: [{ type: 'text', text: message.content }] });
  }
  const system = input.summary
    ? `${input.instructions}\n\n${SUMMARY_HEADING}\n${input.summary}`.trim()
    : input.instructions;
  let tokens = estimateTokens(system) + turns.reduce((sum, turn) => sum + turnTokens(turn), 0);
  while (tokens > input.contextBudgetTokens && turns.length > 1) {
    tokens -= turnTokens(turns.shift() as LanguageModelV3Message);
  }

  const prompt: LanguageModelV3Prompt = [];
  if (system) prompt.push({ role: 'system', content: system });
  prompt.push(...turns);
  for (const step of input.steps) {
    if (step.toolCalls.length === 0) continue;
    prompt.push({
      role: 'assistant',
      content: [
        ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
        ...step.toolCalls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.callId,
          toolName: call.name,
          input: parseArguments(call.arguments) ?? {},
        })),
      ],
    });
    prompt.push({
      role: 'tool',
      content: step.toolCalls.map((call) => {
        const result = input.results.get(idempotencyKey(step.messageId, step.step, call.callId));
        const value = (result?.output ?? null) as JSONValue;
        return {
          type: 'tool-result' as const,
          toolCallId: call.callId,
          toolName: call.name,
          output: result?.isError
            ? {
                type: 'error-text' as const,
                value: typeof value === 'string' ? value : JSON.stringify(value),
              }
            : isToolContentOutput(value)
              ? toolContentForModel(value)
              : { type: 'json' as const, value },
        };
      }),
    });
  }
  return prompt;
}

function turnTokens(turn: LanguageModelV3Message): number {
  if (typeof turn.content === 'string') return estimateTokens(turn.content);
  return turn.content.reduce((sum, part) => sum + (part.type === 'text' ? estimateTokens(part.text) : 0), 0);
}
