import { Injectable } from '@nestjs/common';
import { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { approvalQuestion, AtCapacityError, DomainError, PG_INTEGER_MAX } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentEntity, AgentRepository, ToolApproval, ToolApprovalRepository } from '@app/persistence';
import { RunEvent } from '@app/run-events';
import { endUserOfCaller } from '../../auth/pin-end-user';
import { AskAgent, MESSAGE_MAX_CHARS } from '../ask-agent.use-case';
import { ReplyRunEvents } from '../reply-run-events';
import { agentToolDescription, agentToolNames } from './agent-tool-names';

const INPUT_PROPERTIES = {
  message: { type: 'string', description: 'What to ask the agent.', maxLength: MESSAGE_MAX_CHARS },
  thread_id: {
    type: 'string',
    description: 'Continue this thread (from an earlier answer) instead of starting one.',
  },
  user_id: { type: 'string', description: 'The end user the thread is of (implied by an end-user token).' },
  agent_version: {
    type: 'integer',
    minimum: 1,
    maximum: PG_INTEGER_MAX,
    description:
      'Answer with this version of the agent (its versions are listed by GET /agents/{id}/versions); omitted: the latest.',
  },
};

/** Where a tool call names the version it pins: an unknown one is refused as `arguments.agent_version: …`. */
const AGENT_VERSION_ARGUMENT = ['arguments', 'agent_version'];

/** A service key names the end user; an end-user token is its user, so `user_id` is optional for it (§18). */
const inputSchemaFor = (caller: Caller): Tool['inputSchema'] => ({
  type: 'object',
  properties: INPUT_PROPERTIES,
  required: caller.endUser ? ['message'] : ['message', 'user_id'],
});

/** The final Message a `message.completed` line holds (CONTRACTS §5), as far as a tool result needs it. */
interface FinalMessage {
  id: string;
  thread_id: string;
  status: string;
  content: string;
  error_code: string | null;
  questions: unknown;
  structured_output: unknown;
  events: Record<string, unknown>[] | null;
}

/** A reply that waits for a person (CONTRACTS §19): what it said so far and the calls of its step that wait. */
interface WaitingReply {
  content: string;
  calls: ToolApproval[];
}

/** How following a reply ended: its final Message, a wait for a person, or nothing (the client went away). */
type ReplyOutcome = { final: FinalMessage } | { waiting: WaitingReply } | null;

/** A line of CONTRACTS §24: another model answered a step, or a guardrail acted. */
export type ModelCallNotice = Extract<RunEvent, { type: 'model.fallback' | 'guardrail.triggered' }>;

/** Told of what a reply does while a call waits for it: each step it starts, each §24 line it writes. */
export interface ReplyListener {
  step(step: number): Promise<void>;
  notice(line: ModelCallNotice): Promise<void>;
}

/**
 * The agents of the caller's organization as MCP tools (CONTRACTS §18): one per active agent, and a call that
 * asks it (a new thread, or a follow-up with `thread_id`) and waits for the reply. Failures are tool results
 * with `isError`, never another tenant's data: another organization's thread is "not found", as a missing one.
 */
@Injectable()
export class AgentTools {
  constructor(
    private readonly agents: AgentRepository,
    private readonly askAgent: AskAgent,
    private readonly runEvents: ReplyRunEvents,
    private readonly approvals: ToolApprovalRepository,
  ) {}

  async list(caller: Caller): Promise<Tool[]> {
    const inputSchema = inputSchemaFor(caller);
    return [...(await this.usableTools(caller))].map(([name, agent]) => ({
      name,
      description: agentToolDescription(agent),
      inputSchema,
    }));
  }

  async call(
    caller: Caller,
    name: string,
    args: Record<string, unknown>,
    listener: ReplyListener,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const agent = (await this.usableTools(caller)).get(name);
    if (!agent) return failure(`Unknown tool ${name}`);
    const { message, thread_id: threadId, user_id: namedUserId, agent_version: agentVersion } = args;
    if (typeof message !== 'string' || message.trim() === '')
      return failure('message must be a non-empty string');
    if (message.length > MESSAGE_MAX_CHARS)
      return failure(`message is longer than ${MESSAGE_MAX_CHARS} characters`);
    if (namedUserId !== undefined && typeof namedUserId !== 'string')
      return failure('user_id must be a string');
    if (threadId !== undefined && typeof threadId !== 'string') return failure('thread_id must be a string');
    if (
      agentVersion !== undefined &&
      (!Number.isSafeInteger(agentVersion) ||
        (agentVersion as number) < 1 ||
        (agentVersion as number) > PG_INTEGER_MAX)
    )
      return failure('agent_version must be a whole number from 1');
    try {
      const userId = endUserOfCaller(caller, namedUserId);
      if (!userId) return failure('user_id (the end user) is required with a service key');
      const asked = await this.askAgent.execute(caller, {
        agentId: agent.id,
        content: message,
        threadId,
        userId,
        agentVersion:
          agentVersion === undefined
            ? undefined
            : { version: agentVersion as number, at: AGENT_VERSION_ARGUMENT },
      });
      const outcome = await this.waitForReply(caller, asked.replyId, listener, signal);
      if (!outcome) return failure('The call was cancelled before the reply ended');
      if ('waiting' in outcome) return waitingResult(asked.threadId, asked.replyId, outcome.waiting);
      const { final } = outcome;
      return {
        content: [{ type: 'text', text: final.content }],
        structuredContent: {
          thread_id: final.thread_id,
          message_id: final.id,
          status: final.status,
          content: final.content,
          questions: final.questions,
          structured_output: final.structured_output,
          // CONTRACTS §24, kept with the answer for a client that read no notification.
          error_code: final.error_code,
          model_fallbacks: linesOf(final, 'model.fallback', ['step', 'from', 'to', 'reason']),
          guardrails: linesOf(final, 'guardrail.triggered', ['stage', 'kind', 'action']),
        },
        isError: final.status === 'error' || final.status === 'cancelled',
      };
    } catch (error) {
      // What the chat use cases refuse (an unknown thread, a thread of another agent) is said; anything else is
      // thrown, a refusal of admission control included: the call is not the tool's failure, it did not run.
      if (error instanceof DomainError && !(error instanceof AtCapacityError)) return failure(error.message);
      throw error;
    }
  }

  /**
   * The caller's tools by name. Names are given over all the organization's active agents, so a tool keeps its
   * name whoever lists it; an end-user token limited to some agents then sees only those.
   */
  private async usableTools(caller: Caller): Promise<Map<string, AgentEntity>> {
    const named = agentToolNames(await this.agents.listByOrg(caller.orgId, { includeArchived: false }));
    return new Map([...named].filter(([, agent]) => mayUseAgent(caller, agent.id)));
  }

  /**
   * Follows the reply to its final Message, telling `listener` of each step and §24 line. A reply that waits for a person ends
   * the call at its first `approval.requested` line: the wait may last a day, far beyond a client's time-out.
   * Null when the client went away.
   */
  private async waitForReply(
    caller: Caller,
    replyId: string,
    listener: ReplyListener,
    signal: AbortSignal,
  ): Promise<ReplyOutcome> {
    const lines = await this.runEvents.open(caller, replyId);
    let content = '';
    try {
      for await (const line of lines) {
        if (signal.aborted) return null;
        if (line?.type === 'step.started') await listener.step(line.step);
        if (line?.type === 'model.fallback' || line?.type === 'guardrail.triggered')
          await listener.notice(line);
        if (line?.type === 'text.delta') content += line.delta;
        if (line?.type === 'message.completed') return { final: line.message as unknown as FinalMessage };
        if (line?.type !== 'approval.requested') continue;
        // The step's rows are stored before its lines go out, so the first line finds every waiting call; a
        // replayed line of a step decided since finds none, and the reply goes on.
        const calls = await this.waitingCalls(caller, replyId, line.step);
        if (calls.length > 0) return { waiting: { content, calls } };
      }
      return null;
    } finally {
      lines.close();
    }
  }

  /** The calls of the reply's step, when one of them still waits for a decision; else none. */
  private async waitingCalls(caller: Caller, replyId: string, step: number): Promise<ToolApproval[]> {
    const ofStep = (await this.approvals.ofVisibleReply(caller, replyId)).filter(
      (approval) => approval.step === step,
    );
    return ofStep.some((approval) => approval.decision === null) ? ofStep : [];
  }
}

/**
 * The answer for a reply that waits for a person (CONTRACTS §19): not an error, the call was taken; it names the
 * thread, the reply and its waiting calls, and how a person decides them. The reply goes on once all are decided.
 */
function waitingResult(threadId: string, messageId: string, waiting: WaitingReply): CallToolResult {
  const undecided = waiting.calls.filter((call) => call.decision === null);
  const route = `/chat/messages/${messageId}/approvals`;
  const calls = undecided.map(
    (call) => `- ${call.name} ${JSON.stringify(call.arguments)} (call_id ${call.callId})`,
  );
  const text = [
    `The reply waits for a person to approve or deny ${undecided.length === 1 ? 'a tool call' : 'tool calls'}:`,
    ...calls,
    `Thread ${threadId}, message ${messageId}. Decide each call with POST ${route} and the body ` +
      '{"call_id": <call_id>, "decision": "approve" | "deny", "reason"?: <text>}; once all are decided the ' +
      `reply goes on, and GET /chat/${threadId} shows it.`,
  ].join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: {
      thread_id: threadId,
      message_id: messageId,
      status: 'requires_action',
      content: waiting.content,
      questions: undecided.map(approvalQuestion),
      structured_output: null,
      waiting_calls: undecided.map((call) => ({
        call_id: call.callId,
        name: call.name,
        arguments: call.arguments,
      })),
      decide: { method: 'POST', path: route },
    },
    isError: false,
  };
}

/** The fields of each of the final Message's events of one type, in order. */
function linesOf(final: FinalMessage, type: string, fields: string[]): Record<string, unknown>[] {
  return (final.events ?? [])
    .filter((event) => event.type === type)
    .map((event) => Object.fromEntries(fields.map((field) => [field, event[field]])));
}

const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
