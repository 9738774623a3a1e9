import { BadRequestError, InvalidInputError, isRowId, NotFoundError, ValidationIssue } from '@app/contracts';
import { Injectable } from '@nestjs/common';
import { Caller } from '@app/identity';
import { ThreadRepository } from '@app/persistence';
import { AgentVersionField, PostMessage, StartThread, THREAD_NOT_FOUND, threadScope } from '@app/chat';

/** Longest message a protocol may send: HumanMessage.content (API-SPEC 2.7). */
export const MESSAGE_MAX_CHARS = 30000;

export interface AskAgentInput {
  agentId: string;
  content: string;
  /** A thread of that agent to post a follow-up to; without it a new thread starts. */
  threadId?: string;
  /** The end user the thread is (or must be) of. */
  userId: string;
  maxSteps?: number;
  /** Kept on the reply: a Responses API request's `metadata`. */
  metadata?: Record<string, string>;
  /** The agent version the reply runs (CONTRACTS §23), and the protocol's field that named it. */
  agentVersion?: { version: number; at: AgentVersionField };
}

export interface AskedReply {
  threadId: string;
  replyId: string;
}

/**
 * A protocol's request to an agent (MCP `tools/call`, `POST /openai/v1/responses`) as the chat use cases
 * take it: a new thread as POST /chat, or a follow-up as POST /chat/{thread_id}. Nothing of its own is stored.
 */
@Injectable()
export class AskAgent {
  constructor(
    private readonly threads: ThreadRepository,
    private readonly startThread: StartThread,
    private readonly postMessage: PostMessage,
  ) {}

  async execute(caller: Caller, input: AskAgentInput): Promise<AskedReply> {
    const options = {
      user_id: input.userId,
      max_steps: input.maxSteps,
      agent_version: input.agentVersion?.version,
    };
    const agentVersionAt = input.agentVersion?.at;
    if (input.threadId === undefined) {
      const thread = await this.startThread.execute(
        caller,
        { message: { content: input.content }, options: { ...options, agent_id: input.agentId } },
        { replyMetadata: input.metadata, agentVersionAt },
      );
      return { threadId: thread.id, replyId: thread.messages[thread.messages.length - 1].id };
    }
    const thread = isRowId(input.threadId)
      ? await this.threads.findVisible(threadScope(caller, input.userId), input.threadId)
      : null;
    if (!thread) throw new NotFoundError(THREAD_NOT_FOUND);
    if (thread.agentId !== input.agentId) throw new BadRequestError('The thread is of another agent');
    const reply = await this.postMessage.execute(caller, {
      threadId: thread.id,
      body: { message: { content: input.content }, options },
      replyMetadata: input.metadata,
      agentVersionAt,
    });
    return { threadId: thread.id, replyId: reply.id };
  }
}

/** A 400 of a protocol's own request shape, at `loc` (e.g. `["body", "input"]`), said in `message`. */
export function invalidProtocolInput(
  loc: (string | number)[],
  input: unknown,
  message: string,
): InvalidInputError {
  const issue: ValidationIssue = { type: 'value_error', loc, msg: message, input };
  return new InvalidInputError([issue]);
}
