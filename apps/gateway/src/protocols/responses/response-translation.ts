import { RunEvent } from '@app/run-events';

/*
 * The OpenAI Responses wire format (CONTRACTS §18) as a translation of a reply's stored run-event lines
 * (CONTRACTS §5). It is pure and deterministic: the same lines always make the same events with the same
 * `sequence_number`s, so a stream resumed with `starting_after` (replayed from Redis or, later, from PostgreSQL)
 * is the first one minus its head, and a retrieved Response is the one the stream ended with.
 */

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: [];
}

export interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** The arguments as a JSON string, as the Responses API carries them. */
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

export type OutputItem = MessageItem | FunctionCallItem;

/** What a Response carries that its lines do not: fixed when the reply is stored. */
export interface ResponseHeader {
  /** `resp_` + the reply's message id. */
  id: string;
  /** Unix seconds of the reply's creation. */
  created_at: number;
  /** The agent's id. */
  model: string;
  previous_response_id: string | null;
  user: string | null;
  /** What the request attached (`{}` when nothing). */
  metadata: Record<string, string>;
}

export interface ResponseObject extends ResponseHeader {
  object: 'response';
  status: ResponseStatus;
  output: OutputItem[];
  output_text: string;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number } | null;
  error: { code: string; message: string } | null;
}

/** What a finished reply spent, as its row holds it. */
export interface ReplyTokens {
  inputTokens: number;
  outputTokens: number;
}

const NOTHING_SPENT: ReplyTokens = { inputTokens: 0, outputTokens: 0 };

/** One event of a Responses stream: its `type`, its gap-free `sequence_number`, and the type's fields. */
export interface ResponseStreamEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

export const RESPONSE_ID_PREFIX = 'resp_';

/** The stream events this implementation adds (CONTRACTS §24), prefixed with its slug. */
export const RESPONSE_EVENTS = {
  /** Another model answered a step: `step`, `from`, `to`, `reason`. */
  modelFallback: 'parley:model_fallback',
  /** A guardrail acted: `stage`, `kind`, `action`. */
  guardrail: 'parley:guardrail_triggered',
} as const;

export const responseIdOf = (replyId: string): string => `${RESPONSE_ID_PREFIX}${replyId}`;

/** The reply's message id a response id names, or null when it names none. */
export function replyIdOf(responseId: string): string | null {
  return responseId.startsWith(RESPONSE_ID_PREFIX) ? responseId.slice(RESPONSE_ID_PREFIX.length) : null;
}

/** A stored message status as a Response status: reaching max_steps is `success`, hence `completed`. */
export function responseStatusOf(messageStatus: string): ResponseStatus {
  switch (messageStatus) {
    case 'pending':
      return 'queued';
    case 'running':
      return 'in_progress';
    case 'requires_action':
      // Waiting for a person's approval (CONTRACTS §19): still live, not an end the Responses API knows.
      return 'in_progress';
    case 'success':
      return 'completed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'failed';
  }
}

/** The final Message a `message.completed` line holds (CONTRACTS §5), as far as a Response needs it. */
interface FinalMessage {
  status?: string;
  content?: string;
  error_code?: string | null;
}

/**
 * Turns a reply's run-event lines, in seq order from the first, into Responses events. Feed every line to
 * `next()`; `response()` is the Response as the lines so far make it.
 */
export class ResponseTranslation {
  private sequence = 0;
  private status: ResponseStatus = 'queued';
  private readonly output: OutputItem[] = [];
  /** The message item text deltas go to, until a tool call or the end closes it. */
  private openMessage: MessageItem | null = null;
  private messageCount = 0;
  private usage: ReplyTokens | null = null;
  private error: ResponseObject['error'] = null;

  constructor(private readonly header: ResponseHeader) {}

  /**
   * The events one line becomes. `spent` is what the finished reply spent, read with its `message.completed`
   * line (the line does not carry it).
   */
  next(line: RunEvent, spent: ReplyTokens = NOTHING_SPENT): ResponseStreamEvent[] {
    const events: ResponseStreamEvent[] = [];
    const emit = (type: string, fields: Record<string, unknown>) =>
      events.push({ type, sequence_number: this.sequence++, ...fields });

    switch (line.type) {
      case 'message.started':
        this.status = 'in_progress';
        emit('response.created', { response: this.response() });
        emit('response.in_progress', { response: this.response() });
        break;
      case 'text.delta': {
        // A delta a guardrail withdrew replays empty (CONTRACTS §24): it still makes its event, so a stream replayed
        // after the withdrawal numbers its events as the live one did, and `starting_after` means the same in both.
        const item = this.openMessage ?? this.openMessageItem(emit);
        item.content[0].text += line.delta;
        emit('response.output_text.delta', {
          item_id: item.id,
          output_index: this.output.indexOf(item),
          content_index: 0,
          delta: line.delta,
          logprobs: [],
        });
        break;
      }
      case 'tool.call': {
        this.closeMessageItem(emit, 'completed');
        const item: FunctionCallItem = {
          type: 'function_call',
          id: `fc_${line.call_id}`,
          call_id: line.call_id,
          name: line.name,
          arguments: JSON.stringify(line.arguments),
          status: 'in_progress',
        };
        this.output.push(item);
        emit('response.output_item.added', { output_index: this.output.length - 1, item: { ...item } });
        break;
      }
      case 'tool.result': {
        const item = this.output.find(
          (candidate): candidate is FunctionCallItem =>
            candidate.type === 'function_call' && candidate.call_id === line.call_id,
        );
        if (item && item.status === 'in_progress') this.closeFunctionCall(emit, item, 'completed');
        break;
      }
      case 'message.completed': {
        const message = line.message as FinalMessage;
        const status = responseStatusOf(message.status ?? 'success');
        const closing = status === 'completed' ? 'completed' : 'incomplete';
        this.closeMessageItem(emit, closing);
        for (const item of this.output) {
          if (item.type === 'function_call' && item.status === 'in_progress')
            this.closeFunctionCall(emit, item, closing);
        }
        this.status = status;
        this.usage = spent;
        if (status === 'cancelled') this.error = { code: 'cancelled', message: 'The response was cancelled' };
        else if (status === 'failed')
          this.error = {
            code: message.error_code ?? 'server_error',
            message: message.content || 'The agent failed to answer',
          };
        emit(status === 'completed' ? 'response.completed' : 'response.failed', {
          response: this.response(),
        });
        break;
      }
      // CONTRACTS §24 in the Responses API's own terms: events of this implementation, named with its slug as the
      // Open Responses specification asks of extensions, which a client that does not know them skips.
      case 'model.fallback':
        emit(RESPONSE_EVENTS.modelFallback, {
          step: line.step,
          from: line.from,
          to: line.to,
          reason: line.reason,
        });
        break;
      case 'guardrail.triggered':
        emit(RESPONSE_EVENTS.guardrail, { stage: line.stage, kind: line.kind, action: line.action });
        // A reply stopped by a guardrail takes back the text it streamed: the message items end with the stored
        // content (the closing words that follow), as their `.done` events and the Response say.
        if (line.stage === 'output' && line.action === 'blocked') {
          for (const item of this.output) if (item.type === 'message') item.content[0].text = '';
        }
        break;
      // step.started and questions have no Responses counterpart.
    }
    return events;
  }

  response(): ResponseObject {
    const output = this.output.map((item) =>
      item.type === 'message' ? { ...item, content: item.content.map((part) => ({ ...part })) } : { ...item },
    );
    return {
      ...this.header,
      object: 'response',
      status: this.status,
      output,
      output_text: output
        .flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
        .join(''),
      usage:
        this.usage === null
          ? null
          : {
              input_tokens: this.usage.inputTokens,
              output_tokens: this.usage.outputTokens,
              total_tokens: this.usage.inputTokens + this.usage.outputTokens,
            },
      error: this.error,
    };
  }

  private openMessageItem(emit: Emit): MessageItem {
    const item: MessageItem = {
      type: 'message',
      id: `msg_${this.header.id.slice(RESPONSE_ID_PREFIX.length)}_${this.messageCount++}`,
      role: 'assistant',
      status: 'in_progress',
      content: [{ type: 'output_text', text: '', annotations: [] }],
    };
    this.output.push(item);
    this.openMessage = item;
    const output_index = this.output.length - 1;
    emit('response.output_item.added', { output_index, item: { ...item, content: [] } });
    emit('response.content_part.added', {
      item_id: item.id,
      output_index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    return item;
  }

  private closeMessageItem(emit: Emit, status: MessageItem['status']): void {
    const item = this.openMessage;
    if (!item) return;
    this.openMessage = null;
    item.status = status;
    const output_index = this.output.indexOf(item);
    const part = { ...item.content[0] };
    emit('response.output_text.done', {
      item_id: item.id,
      output_index,
      content_index: 0,
      text: part.text,
      logprobs: [],
    });
    emit('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part });
    emit('response.output_item.done', { output_index, item: { ...item, content: [part] } });
  }

  private closeFunctionCall(emit: Emit, item: FunctionCallItem, status: FunctionCallItem['status']): void {
    item.status = status;
    emit('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: this.output.indexOf(item),
      name: item.name,
      arguments: item.arguments,
    });
    emit('response.output_item.done', { output_index: this.output.indexOf(item), item: { ...item } });
  }
}

type Emit = (type: string, fields: Record<string, unknown>) => void;
