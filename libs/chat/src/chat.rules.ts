import { Logger } from '@nestjs/common';
import {
  AgentRunJob,
  ConflictError,
  endedReplyEvent,
  endedReplyMessage,
  HumanMessageDto,
  InvalidInputError,
  MultitaskStrategy,
  NotFoundError,
  valueErrorIssue,
} from '@app/contracts';
import { Caller, mayUseAgent, requireMemoryNamespaceAllowed } from '@app/identity';
import {
  AgentEntity,
  AgentRepository,
  AgentVersionRepository,
  Db,
  MessageEntity,
  MessageRepository,
  NewExchange,
  NewPendingReply,
  Scope,
  ThreadEntity,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { RunCancellation } from '@app/run-events';

export const THREAD_NOT_FOUND = 'Thread not found';
export const AGENT_NOT_FOUND = 'Agent not found';
export const THREAD_HAS_LIVE_REPLY = 'Thread has a live reply';

/** Longest name derived from a first message. */
const DERIVED_NAME_MAX_CHARS = 80;

/**
 * Whose thread a call may touch (CONTRACTS §2): the caller's organization and, when a user id is given
 * (query parameter or `options.user_id`), that end user only. Two different user ids cannot both be the
 * owner, so they answer the same 404 as a foreign thread.
 */
export function threadScope(caller: Caller, ...userIds: (string | null | undefined)[]): Scope {
  const named = [...new Set(userIds.filter((id): id is string => id != null))];
  if (named.length > 1) throw new NotFoundError(THREAD_NOT_FOUND);
  return { orgId: caller.orgId, userId: named[0] };
}

/** A thread's name when none is given: the first non-blank line of the first message, trimmed, ≤ 80 chars. */
export function nameFrom(content: string): string {
  const line = content
    .split(/\r?\n/)
    .map((text) => text.trim())
    .find((text) => text.length > 0);
  if (!line) return 'New thread';
  return Array.from(line).slice(0, DERIVED_NAME_MAX_CHARS).join('').trim();
}

/**
 * Enqueues a stored pending reply, after its transaction committed: enqueueing inside it would let a worker
 * load rows not yet visible. A crash (or a Redis failure) between the commit and this call leaves a pending
 * reply that no job runs; the worker's sweep of old pending replies re-enqueues it under the same job id
 * (the reply's id). So a failure here is logged and the stored reply is answered: failing the request would
 * invite a retry that stores the exchange twice. (A Redis already down is refused before anything is stored,
 * by the route's `@SafelyRetried()`.) The reply's place in its organization's backlog is its place in the
 * queue's fair share.
 */
export async function enqueueStoredReply(
  queue: AgentRunQueue,
  messages: MessageRepository,
  logger: Logger,
  scope: Pick<Scope, 'orgId'>,
  reply: MessageEntity,
  requestId?: string,
): Promise<void> {
  const job: AgentRunJob = { messageId: reply.id, threadId: reply.threadId, requestId };
  try {
    await queue.enqueue(job, await messages.orgBacklogBefore(scope, reply));
  } catch (error) {
    logger.error(
      { err: error, ...job },
      'reply stored but not enqueued; the pending-reply sweep will enqueue it',
    );
  }
}

/**
 * Closes the thread's replies that no run holds (never started, or waiting for an approval) as cancelled (with
 * `onlyId`, that reply alone), each by the statement every reply's end goes through (its usage counted, its end
 * reported to webhooks, `message.cancelled` with the Message as its stream's last line shows it), and answers
 * them: after the commit, `closeCancelledStreams` has a worker write their streams' last lines. A running reply
 * is its worker's to stop: it is told through RunCancellation after the commit, and ends (and reports) the reply
 * itself.
 */
export async function cancelPendingReplies(
  tx: Db,
  scope: Scope,
  thread: ThreadEntity,
  messages: MessageRepository,
  agents: AgentRepository,
  onlyId?: string,
): Promise<MessageEntity[]> {
  const unheld = await messages.lockUnheldReplies(tx, scope, thread.id, onlyId);
  const agentIds = [...new Set(unheld.flatMap((reply) => (reply.agentId ? [reply.agentId] : [])))];
  const byId = new Map((await agents.findMany(scope.orgId, agentIds, tx)).map((agent) => [agent.id, agent]));
  const cancelled: MessageEntity[] = [];
  for (const reply of unheld) {
    const ended: MessageEntity = { ...reply, status: 'cancelled', live: false };
    const message = endedReplyMessage(ended, reply.agentId ? byId.get(reply.agentId) : null);
    const closed = await messages.cancelUnheldReply(
      tx,
      scope,
      reply.id,
      endedReplyEvent('cancelled', message),
    );
    if (closed) cancelled.push(closed);
  }
  return cancelled;
}

/**
 * Has a worker close the streams of replies cancelled while no run held them: a pending reply's job finds it
 * ended and writes its last lines; a reply that waited for an approval has no job left, so it gets one again.
 * A failure is logged: the stream then stays open until its client leaves, the reply itself is closed.
 */
export async function closeCancelledStreams(
  queue: AgentRunQueue,
  logger: Logger,
  cancelled: readonly MessageEntity[],
): Promise<void> {
  for (const reply of cancelled) {
    const job: AgentRunJob = { messageId: reply.id, threadId: reply.threadId };
    await queue.enqueueAgain(job).catch((error: unknown) => {
      logger.error({ err: error, ...job }, 'cancelled reply not enqueued: its stream is not closed');
    });
  }
}

/** What a POST to a thread stores: the user's message as sent and the pending reply that answers it. */
export function exchangeOf(message: HumanMessageDto, reply: NewPendingReply): NewExchange {
  return {
    message: {
      content: message.content,
      fileIds: message.file_ids ?? [],
      sourceIds: message.source_ids ?? null,
      documentIds: message.document_ids ?? null,
      disabledTools: message.disabled_tools ?? null,
    },
    reply,
  };
}

/** Where a request names the version it pins: `options.agent_version` of POST /chat, another field in a protocol. */
export type AgentVersionField = (string | number)[];
const AGENT_VERSION_OPTION: AgentVersionField = ['body', 'options', 'agent_version'];

/** What a protocol adds to a request that starts a reply (POST /chat and POST /chat/{thread_id} as it calls them). */
export interface ProtocolReplyOptions {
  /** A Responses API request's `metadata`, kept on the reply (CONTRACTS §18). */
  replyMetadata?: Record<string, string>;
  /** A protocol's field that carried `options.agent_version`, where a 422 points. */
  agentVersionAt?: AgentVersionField;
}

/**
 * The agent version a request pins (`options.agent_version`, CONTRACTS §23, or the protocol's own field `at`),
 * checked to exist: 422 at that field otherwise. Undefined when none is pinned (the reply runs the latest version).
 */
export async function pinnedAgentVersion(
  versions: AgentVersionRepository,
  agent: Pick<AgentEntity, 'id' | 'orgId'>,
  version: number | null | undefined,
  db?: Db,
  at: AgentVersionField = AGENT_VERSION_OPTION,
): Promise<number | undefined> {
  if (version == null) return undefined;
  if (await versions.exists({ orgId: agent.orgId }, agent.id, version, db)) return version;
  throw new InvalidInputError([valueErrorIssue(at, version, 'the agent has no such version')]);
}

/** The thread, locked until the transaction ends, if the caller may see it; else 404. */
export async function lockThread(
  tx: Db,
  caller: Caller,
  scope: Scope,
  threadId: string,
  threads: ThreadRepository,
): Promise<ThreadEntity> {
  const thread = await threads.lockVisible(tx, scope, threadId);
  // An end-user token limited to some agents sees no thread of another.
  if (!thread || !mayUseAgent(caller, thread.agentId)) throw new NotFoundError(THREAD_NOT_FOUND);
  return thread;
}

/** What clearing a thread's live replies left to do after the commit. */
export interface ClearedReplies {
  /** Closed here (pending, or waiting for a person): their streams still need their last lines. */
  cancelled: MessageEntity[];
  /** The running reply, which only its worker can end. */
  interrupted: { id: string } | null;
}

/**
 * Regenerate and edit change what the thread's next reply answers, so they never queue behind a live reply
 * (CONTRACTS §19): 409 while one is live, unless `interrupt`, which cancels every live reply as a follow-up's
 * interrupt does (§12).
 */
export function branchStrategy(strategy: MultitaskStrategy | null | undefined): MultitaskStrategy {
  return strategy === 'interrupt' ? 'interrupt' : 'reject';
}

/**
 * What a new reply of a locked thread needs before it is stored: a caller that may use the thread's memory
 * namespace (403 otherwise, CONTRACTS §21), the thread's agent, live (a new run needs one,
 * as at the start of a thread; else 404), and the thread's live replies dealt with as `strategy` says (CONTRACTS
 * §12): `enqueue` leaves them, the new reply queuing behind; `reject` answers 409 while one is live; `interrupt`
 * closes the replies that never started here, and names the running one, its worker's to end, told after the
 * commit by `finishClearing`.
 */
export async function prepareReply(
  tx: Db,
  caller: Caller,
  scope: Scope,
  thread: ThreadEntity,
  strategy: MultitaskStrategy,
  agents: AgentRepository,
  messages: MessageRepository,
): Promise<{ agent: AgentEntity; cleared: ClearedReplies }> {
  // The new reply runs bound to the thread's namespace: the caller must be one that may use it.
  requireMemoryNamespaceAllowed(caller, thread.memoryNamespace);
  const agent = await agents.findActive(caller.orgId, thread.agentId, tx);
  if (!agent) throw new NotFoundError(AGENT_NOT_FOUND);
  const live = strategy === 'enqueue' ? [] : await messages.liveReplies(scope, thread.id, tx);
  if (live.length === 0) return { agent, cleared: { cancelled: [], interrupted: null } };
  if (strategy === 'reject') throw new ConflictError(THREAD_HAS_LIVE_REPLY);
  const cancelled = await cancelPendingReplies(tx, scope, thread, messages, agents);
  return {
    agent,
    cleared: { cancelled, interrupted: live.find((reply) => reply.status === 'running') ?? null },
  };
}

/**
 * After the commit: the running reply is told to stop before the new one is enqueued (the request names the old
 * reply, so it can never stop the new one), and the cancelled replies' streams are closed.
 */
export async function finishClearing(
  cleared: ClearedReplies,
  threadId: string,
  cancellation: RunCancellation,
  queue: AgentRunQueue,
  logger: Logger,
): Promise<void> {
  if (cleared.interrupted) {
    await cancellation.requestCancel({ threadId, messageId: cleared.interrupted.id });
  }
  await closeCancelledStreams(queue, logger, cleared.cancelled);
}
