import { Question } from '@app/contracts';
import {
  AgentEntity,
  MessageEntity,
  RunContext,
  RunStepEntity,
  StepToolCall,
  ThreadEntity,
  ToolApproval,
} from '@app/persistence';
import { MessageAttachments } from '../conversation';
import { GuardrailTrigger } from '../guardrails/guardrails';
import { RunState } from './run-state';

/** One reply's run as the step loop sees it. */
export interface ReplyRun {
  reply: MessageEntity;
  /** The user message the reply answers (its disabled_tools, source_ids, document_ids). */
  question: MessageEntity | null;
  thread: ThreadEntity;
  agent: AgentEntity;
  /**
   * The thread before the reply (the messages after its latest summary), the reply's stored steps and tool
   * results, the gate of its next step.
   */
  context: RunContext;
  /** The thread's latest summary of its older messages (ContextCompaction), given to the model first. */
  summary: string | null;
  /** What the reply's run spent writing that summary, counted against its budgets like its steps. */
  summaryUsageTokens: number;
  /** Files attached to the history's user messages, by message id. */
  attachments: ReadonlyMap<string, MessageAttachments>;
  /** The reply's tool calls that waited or wait for a person (CONTRACTS §19). */
  approvals: ToolApproval[];
  state: RunState;
  signal: AbortSignal;
}

export type LoopOutcome =
  | {
      kind: 'success';
      questions: Question[] | null;
      structuredOutput: Record<string, unknown> | null;
      /** The last step when it is not stored yet: the finish stores it (RunRepository.finish). */
      finalStep: RunStepEntity | null;
    }
  /** A call of the last stored step waits for a person: the reply stays live, no run holds it meanwhile. */
  | { kind: 'awaiting_approval'; questions: Question[] }
  | { kind: 'cancelled' }
  | { kind: 'budget_exhausted' }
  /**
   * A guardrail blocked the user's message or stopped the reply (CONTRACTS §24). `finalStep`: the blocked step
   * when a model spent tokens on it (the moderation model, the step's own call), stored by the finish like any
   * last step but without its withdrawn text, so its usage counts (CONTRACTS §21).
   */
  | { kind: 'guardrail_blocked'; finalStep: RunStepEntity | null }
  | { kind: 'model_error'; reason: string };

/** The model failed (an error part, a refused call, a broken stream): the reply ends with status error. */
export class ModelCallError extends Error {
  constructor(
    message: string,
    /**
     * Before any output, for a reason another model may not share (rate limit, 5xx, timeout, unreachable): the
     * step may be tried on the agent's next fallback model (CONTRACTS §24).
     */
    readonly fallbackAllowed = false,
  ) {
    super(message);
  }
}

/** What one model call produced, before it is stored as the step. */
export interface StepOutput {
  text: string;
  toolCalls: StepToolCall[];
  questions: Question[] | null;
  structuredOutput: Record<string, unknown> | null;
  usageTokens: number;
  /** The part of usageTokens the model wrote. */
  outputTokens: number;
  /** The part of usageTokens the vendor read from its prompt cache. */
  cachedInputTokens: number;
  /** The model that answered: the agent's, or one of its fallback models. */
  model: string;
  /** Time spent writing this call's deltas. */
  emitMs: number;
  /**
   * The output guardrail that stopped the call as it streamed (CONTRACTS §24): nothing after it went out, and
   * the call was read to its end for its usage.
   */
  blocked: GuardrailTrigger | null;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
