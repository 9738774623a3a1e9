import { ApprovalDecision, Question } from '@app/contracts';

/**
 * The lines of a reply's stream (CONTRACTS §5). Every line has `seq` (0, 1, 2, … without gaps, per message)
 * and `type`; `Message.events` keeps them all but `text.delta` and `message.completed`.
 */
export type RunEvent =
  | {
      seq: number;
      type: 'message.started';
      message_id: string;
      thread_id: string;
      /** The agent version the reply ran (CONTRACTS §23); null for a reply that never ran, or stored before versions. */
      agent_version?: number | null;
    }
  | { seq: number; type: 'step.started'; step: number }
  | { seq: number; type: 'text.delta'; delta: string }
  | {
      seq: number;
      type: 'tool.call';
      step: number;
      call_id: string;
      name: string;
      arguments: Record<string, unknown>;
    }
  | {
      seq: number;
      type: 'tool.result';
      step: number;
      call_id: string;
      name: string;
      output: unknown;
      is_error: boolean;
    }
  | { seq: number; type: 'questions'; questions: Question[] }
  | {
      seq: number;
      type: 'approval.requested';
      step: number;
      call_id: string;
      name: string;
      arguments: Record<string, unknown>;
    }
  | { seq: number; type: 'approval.decided'; step: number; call_id: string; decision: ApprovalDecision }
  | { seq: number; type: 'context.compacted'; summarized_messages: number; summary_tokens: number }
  | { seq: number; type: 'model.fallback'; step: number; from: string; to: string; reason: string }
  | {
      seq: number;
      type: 'guardrail.triggered';
      stage: GuardrailStage;
      kind: GuardrailKind;
      action: GuardrailAction;
    }
  | { seq: number; type: 'message.completed'; message: Record<string, unknown> };

/** Where a guardrail looked (CONTRACTS §24): the user's message, or the reply as it streamed. */
export type GuardrailStage = 'input' | 'output';
/** What it found: a kind of PII, a blocked term, a flag of the moderation model (or its failure to answer). */
export type GuardrailKind = 'email' | 'phone' | 'card' | 'iban' | 'blocked_term' | 'moderation';
type GuardrailAction = 'redacted' | 'blocked';

/** An event before the publisher numbers it. */
export type UnnumberedRunEvent = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'seq'>
    : never
  : never;

/** The line written while nothing happens for STREAM_HEARTBEAT_MS; it has no seq. */
export const HEARTBEAT_LINE = { type: 'heartbeat' } as const;
