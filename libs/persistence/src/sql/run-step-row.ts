import type { RunStepEntity } from '../entities';

/** A column of run_steps: its SQL type and a step's value for it as the statement sends it. */
export interface RunStepColumn {
  name: string;
  type: string;
  value: (step: RunStepEntity) => unknown;
}

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/**
 * The columns a step is stored with, in one order: by a run's saveStep, and as the last step stored with its
 * reply's end (reply-ending/store-last-step.sql.ts). A new column of run_steps is added here, for both.
 */
export const RUN_STEP_COLUMNS: readonly RunStepColumn[] = [
  { name: 'message_id', type: 'uuid', value: (step) => step.messageId },
  { name: 'step', type: 'int', value: (step) => step.step },
  { name: 'text', type: 'text', value: (step) => step.text },
  { name: 'tool_calls', type: 'jsonb', value: (step) => JSON.stringify(step.toolCalls) },
  { name: 'questions', type: 'jsonb', value: (step) => json(step.questions) },
  { name: 'structured_output', type: 'jsonb', value: (step) => json(step.structuredOutput) },
  { name: 'usage_tokens', type: 'int', value: (step) => step.usageTokens },
  { name: 'output_tokens', type: 'int', value: (step) => step.outputTokens },
  { name: 'content_length', type: 'int', value: (step) => step.contentLength },
  { name: 'started_at', type: 'timestamptz', value: (step) => step.startedAt },
  { name: 'delta_lengths', type: 'int[]', value: (step) => step.deltaLengths },
  { name: 'streamed_text', type: 'text', value: (step) => step.streamedText },
  { name: 'model', type: 'text', value: (step) => step.model },
  { name: 'cached_input_tokens', type: 'int', value: (step) => step.cachedInputTokens },
];
