import type { Question, WebhookEvent } from '@app/contracts';
import type { RunStepEntity } from '../../entities';
import { RUN_STEP_COLUMNS } from '../run-step-row';

/** How a reply ends: what its final message row holds. */
export interface ReplyOutcome {
  status: 'success' | 'error' | 'cancelled';
  content: string;
  errorCode: 'budget_exhausted' | 'guardrail_blocked' | null;
  questions: Question[] | null;
  structuredOutput: Record<string, unknown> | null;
  events: Record<string, unknown>[];
  deltaLengths: number[];
}

/** What ending a reply is told, whichever way it ends. */
export interface ReplyEndingInput {
  replyId: string;
  /**
   * The row's end: a run's whole outcome, or its status alone where the ending keeps what the row holds (a reply
   * no run holds: see ReplyEndingPlan.row).
   */
  outcome: ReplyOutcome | Pick<ReplyOutcome, 'status'>;
  /** The webhook event reporting the end (`message.completed`, `message.failed`, `message.cancelled`). */
  event: WebhookEvent;
  /** The run's last step when it is not stored yet; absent or null: none. */
  lastStep?: RunStepEntity | null;
  /** AGENT_RUN_ORG_CONCURRENCY (0 or absent: no cap, so no reply waits for its organization). */
  orgCap?: number;
}

interface Parameter {
  type: string;
  value: (ending: ReplyEndingInput) => unknown;
}

/** The outcome a run writes over the row; asked only by a composition that writes it. */
function written(ending: ReplyEndingInput): ReplyOutcome {
  if (!('content' in ending.outcome)) {
    throw new Error(`the ending of reply ${ending.replyId} writes a final row but was given only its status`);
  }
  return ending.outcome;
}

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

const ENDING_PARAMETERS = {
  replyId: { type: 'uuid', value: (ending) => ending.replyId },
  status: { type: 'text', value: (ending) => ending.outcome.status },
  content: { type: 'text', value: (ending) => written(ending).content },
  errorCode: { type: 'text', value: (ending) => written(ending).errorCode },
  questions: { type: 'jsonb', value: (ending) => json(written(ending).questions) },
  structuredOutput: { type: 'jsonb', value: (ending) => json(written(ending).structuredOutput) },
  events: { type: 'jsonb', value: (ending) => JSON.stringify(written(ending).events) },
  deltaLengths: { type: 'int[]', value: (ending) => written(ending).deltaLengths },
  eventId: { type: 'uuid', value: (ending) => ending.event.id },
  eventType: { type: 'text', value: (ending) => ending.event.type },
  eventPayload: { type: 'jsonb', value: (ending) => JSON.stringify(ending.event.payload) },
  orgCap: { type: 'int', value: (ending) => ending.orgCap ?? 0 },
} satisfies Record<string, Parameter>;

/** A column of the last step, each a parameter of its own: all null when there is no last step. */
const LAST_STEP_PARAMETERS: Record<string, Parameter> = Object.fromEntries(
  RUN_STEP_COLUMNS.map((column) => [
    `lastStep.${column.name}`,
    { type: column.type, value: (ending) => (ending.lastStep ? column.value(ending.lastStep) : null) },
  ]),
);

export type ReplyEndingParameter = keyof typeof ENDING_PARAMETERS | `lastStep.${string}`;

function parameter(name: ReplyEndingParameter): Parameter {
  const found = (ENDING_PARAMETERS as Record<string, Parameter>)[name] ?? LAST_STEP_PARAMETERS[name];
  if (!found) throw new Error(`no reply-ending parameter ${name}`);
  return found;
}

/**
 * The one place where an ending's named parameters become PostgreSQL's positional ones: a fragment asks for a
 * parameter by name (`of`), which numbers it at its first use and types it there; `values` then lists the
 * input's values in that numbering. So a composed statement has exactly the parameters its fragments use.
 */
export class ReplyEndingPlaceholders {
  private readonly order: ReplyEndingParameter[] = [];

  /** `$n::type` of the named parameter. */
  of(name: ReplyEndingParameter): string {
    let index = this.order.indexOf(name);
    if (index < 0) index = this.order.push(name) - 1;
    return `$${index + 1}::${parameter(name).type}`;
  }

  /** The parameters used so far, in their numbering. */
  names(): readonly ReplyEndingParameter[] {
    return this.order;
  }

  values(ending: ReplyEndingInput): unknown[] {
    return this.order.map((name) => parameter(name).value(ending));
  }
}
