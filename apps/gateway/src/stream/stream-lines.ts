import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { FREE_FORM, MessageResponse, Question } from '@app/contracts';
import { ApiAnyValue } from '../ops/openapi-finish';

/*
 * The lines of the reply stream (CONTRACTS §5) as OpenAPI schemas. The stream writes the RunEvent union of
 * libs/run-events; these classes only describe it.
 */

const SEQ = {
  type: 'integer',
  minimum: 0,
  description: 'Position of the line in the stream: 0, 1, 2, … without gaps. Resume with ?after=<seq>.',
} as const;
const STEP = { type: 'integer', minimum: 1, description: 'The tool round, 1-based.' } as const;

class MessageStartedLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['message.started'] })
  type: 'message.started';
  @ApiProperty({ format: 'uuid' })
  message_id: string;
  @ApiProperty({ format: 'uuid' })
  thread_id: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    required: false,
    description:
      'The agent version the reply runs: the pinned one, else the latest when the run started; null for a reply ' +
      'that never ran; absent from a line written before agents had versions.',
  })
  agent_version?: number | null;
}

class StepStartedLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['step.started'] })
  type: 'step.started';
  @ApiProperty(STEP)
  step: number;
}

class TextDeltaLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['text.delta'] })
  type: 'text.delta';
  @ApiProperty({ description: "A piece of the reply's content; the deltas, joined, are the final content." })
  delta: string;
}

class ToolCallLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['tool.call'] })
  type: 'tool.call';
  @ApiProperty(STEP)
  step: number;
  @ApiProperty({ description: 'Pairs the call with its tool.result.' })
  call_id: string;
  @ApiProperty({ description: 'The tool called.', example: 'clock' })
  name: string;
  @ApiProperty(FREE_FORM)
  arguments: Record<string, unknown>;
}

class ToolResultLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['tool.result'] })
  type: 'tool.result';
  @ApiProperty(STEP)
  step: number;
  @ApiProperty()
  call_id: string;
  @ApiProperty({ example: 'clock' })
  name: string;
  @ApiAnyValue("The tool's output (any JSON value).", true)
  output: unknown;
  @ApiProperty({ description: 'True when the tool failed or is not available to the run.' })
  is_error: boolean;
}

class QuestionsLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['questions'] })
  type: 'questions';
  @ApiProperty({ type: [Question] })
  questions: Question[];
}

class ApprovalRequestedLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['approval.requested'] })
  type: 'approval.requested';
  @ApiProperty(STEP)
  step: number;
  @ApiProperty({
    description: 'The waiting call: decide it with POST /chat/messages/{message_id}/approvals.',
  })
  call_id: string;
  @ApiProperty({ description: 'The tool called.', example: 'web' })
  name: string;
  @ApiProperty(FREE_FORM)
  arguments: Record<string, unknown>;
}

class ApprovalDecidedLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['approval.decided'] })
  type: 'approval.decided';
  @ApiProperty(STEP)
  step: number;
  @ApiProperty()
  call_id: string;
  @ApiProperty({
    enum: ['approve', 'deny'],
    description: 'What was decided; a call left unanswered for APPROVAL_TIMEOUT_SECONDS is denied.',
  })
  decision: 'approve' | 'deny';
}

class ContextCompactedLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['context.compacted'] })
  type: 'context.compacted';
  @ApiProperty({
    type: 'integer',
    description:
      "Messages the thread's summary now stands for (they stay stored; runs read the summary instead).",
  })
  summarized_messages: number;
  @ApiProperty({ type: 'integer', description: 'The size of the summary, in tokens.' })
  summary_tokens: number;
}

class ModelFallbackLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['model.fallback'] })
  type: 'model.fallback';
  @ApiProperty(STEP)
  step: number;
  @ApiProperty({ description: 'The model whose call failed before its first delta.' })
  from: string;
  @ApiProperty({ description: 'The next of the agent’s fallback_models, which the step is tried on now.' })
  to: string;
  @ApiProperty({ description: 'Why the call failed (a rate limit, a 5xx, a timeout, a refused connection).' })
  reason: string;
}

class GuardrailTriggeredLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['guardrail.triggered'] })
  type: 'guardrail.triggered';
  @ApiProperty({ enum: ['input', 'output'], description: "The user's message, or the reply as it streamed." })
  stage: 'input' | 'output';
  @ApiProperty({ enum: ['email', 'phone', 'card', 'iban', 'blocked_term', 'moderation'] })
  kind: string;
  @ApiProperty({
    enum: ['redacted', 'blocked'],
    description:
      'blocked: the reply ends error_code "guardrail_blocked" (its text withdrawn, at the output).',
  })
  action: 'redacted' | 'blocked';
}

class MessageCompletedLine {
  @ApiProperty(SEQ)
  seq: number;
  @ApiProperty({ enum: ['message.completed'] })
  type: 'message.completed';
  @ApiProperty({ type: MessageResponse, description: 'The final Message. Always the last line.' })
  message: MessageResponse;
}

class HeartbeatLine {
  @ApiProperty({ enum: ['heartbeat'], description: 'Written while nothing happens for 15 s; has no seq.' })
  type: 'heartbeat';
}

const LINES = {
  'message.started': MessageStartedLine,
  'step.started': StepStartedLine,
  'text.delta': TextDeltaLine,
  'tool.call': ToolCallLine,
  'tool.result': ToolResultLine,
  questions: QuestionsLine,
  'approval.requested': ApprovalRequestedLine,
  'approval.decided': ApprovalDecidedLine,
  'context.compacted': ContextCompactedLine,
  'model.fallback': ModelFallbackLine,
  'guardrail.triggered': GuardrailTriggeredLine,
  'message.completed': MessageCompletedLine,
  heartbeat: HeartbeatLine,
};

export const StreamLineModels = () => ApiExtraModels(...Object.values(LINES));

/** The schema of one line: exactly one of the line types, told apart by `type`. */
export const STREAM_LINE_SCHEMA = {
  oneOf: Object.values(LINES).map((line) => ({ $ref: getSchemaPath(line) })),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries(Object.entries(LINES).map(([type, line]) => [type, getSchemaPath(line)])),
  },
};
