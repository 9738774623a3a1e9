import { Injectable } from '@nestjs/common';
import { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { DomainError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentEntity, AgentRepository } from '@app/persistence';
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
};

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
  questions: unknown;
  structured_output: unknown;
}

/** Told of each step a reply starts, for MCP progress notifications. */
export type StepListener = (step: number) => Promise<void>;

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
    onStep: StepListener,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const agent = (await this.usableTools(caller)).get(name);
    if (!agent) return failure(`Unknown tool ${name}`);
    const { message, thread_id: threadId, user_id: namedUserId } = args;
    if (typeof message !== 'string' || message.trim() === '')
      return failure('message must be a non-empty string');
    if (message.length > MESSAGE_MAX_CHARS)
      return failure(`message is longer than ${MESSAGE_MAX_CHARS} characters`);
    if (namedUserId !== undefined && typeof namedUserId !== 'string')
      return failure('user_id must be a string');
    if (threadId !== undefined && typeof threadId !== 'string') return failure('thread_id must be a string');
    try {
      const userId = endUserOfCaller(caller, namedUserId);
      if (!userId) return failure('user_id (the end user) is required with a service key');
      const asked = await this.askAgent.execute(caller, {
        agentId: agent.id,
        content: message,
        threadId,
        userId,
      });
      const final = await this.waitForReply(caller, asked.replyId, onStep, signal);
      if (!final) return failure('The call was cancelled before the reply ended');
      return {
        content: [{ type: 'text', text: final.content }],
        structuredContent: {
          thread_id: final.thread_id,
          message_id: final.id,
          status: final.status,
          content: final.content,
          questions: final.questions,
          structured_output: final.structured_output,
        },
        isError: final.status === 'error' || final.status === 'cancelled',
      };
    } catch (error) {
      // What the chat use cases refuse (an unknown thread, a thread of another agent) is said; anything else is thrown.
      if (error instanceof DomainError) return failure(error.message);
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

  /** Follows the reply to its final Message, telling `onStep` of each step; null when the client went away. */
  private async waitForReply(
    caller: Caller,
    replyId: string,
    onStep: StepListener,
    signal: AbortSignal,
  ): Promise<FinalMessage | null> {
    for await (const line of await this.runEvents.open(caller, replyId)) {
      if (signal.aborted) return null;
      if (line?.type === 'step.started') await onStep(line.step);
      if (line?.type === 'message.completed') return line.message as unknown as FinalMessage;
    }
    return null;
  }
}

const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
