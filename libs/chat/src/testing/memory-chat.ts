import { DataSource, EntityManager } from 'typeorm';
import { AgentRunJob, ConversationFileResponse, WebhookEvent } from '@app/contracts';
import { FileAttachments } from '@app/files';
import {
  AgentEntity,
  AgentRepository,
  AgentVersionRepository,
  IdempotencyKeyRepository,
  MessageEntity,
  MessageRepository,
  NewExchange,
  NewPendingReply,
  Scope,
  ThreadEntity,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { ReplyAdmission } from '../reply-admission';
import { StopThreadReplies } from '../stop-thread-replies';
import { ThreadReplies } from '../thread-replies';
import { RunCancellation, RunCancellationRequest } from '@app/run-events';

export const ORG = 'org-1';
export const AGENT_ID = 'agent-1';

/** A message to seed: `[id, role, status, parent id]` (a reply answers its parent). */
export type SeededMessage = [string, 'user' | 'assistant', MessageEntity['status'], string | null];

/**
 * The chat use cases' collaborators in memory, for unit specs: one organization's threads and messages as
 * PostgreSQL would hold them (branches by parent, the active leaf, positions, live replies), the queue, the
 * cancellation channel and the webhook outbox. A transaction that throws leaves the rows as they were.
 * `timeline` records, in order, what a spec checks the order of: transactions, enqueueing, cancel requests.
 */
export class MemoryChat {
  readonly timeline: string[] = [];
  readonly threads = new Map<string, ThreadEntity>();
  messages: MessageEntity[] = [];
  readonly agents: AgentEntity[] = [
    Object.assign(new AgentEntity(), { id: AGENT_ID, orgId: ORG, name: 'helper', archivedAt: null }),
  ];
  /** Webhook events recorded in a transaction: `<type> <message id> <its status as reported>`. */
  readonly webhookEvents: string[] = [];
  readonly enqueued: { job: AgentRunJob; backlog: number }[] = [];
  readonly enqueuedAgain: AgentRunJob[] = [];
  readonly cancelRequests: RunCancellationRequest[] = [];
  readonly answersRecorded: unknown[] = [];
  /** Makes the queue refuse every job from now on (Redis lost after the commit). */
  queueDown = false;
  private nextId = 1;

  /** A thread of the organization owned by `userId`, with messages in that order; the last is the active leaf. */
  seedThread(id: string, messages: SeededMessage[], values: Partial<ThreadEntity> = {}): ThreadEntity {
    const thread = Object.assign(new ThreadEntity(), {
      id,
      orgId: ORG,
      userId: 'alice',
      agentId: AGENT_ID,
      name: 'A thread',
      projectId: null,
      memoryNamespace: null,
      starred: false,
      inception: 'conversational',
      archivedAt: null,
      activeLeafId: messages.at(-1)?.[0] ?? null,
      createdAt: new Date('2026-01-01T00:00:00Z'),
      ...values,
    });
    this.threads.set(id, thread);
    for (const [messageId, role, status, parentId] of messages) {
      this.store(thread, {
        id: messageId,
        role,
        status,
        live: status === 'pending' || status === 'running' || status === 'requires_action',
        parentId,
        replyToId: role === 'assistant' ? parentId : null,
        agentId: role === 'assistant' ? AGENT_ID : null,
      });
    }
    return thread;
  }

  message(id: string): MessageEntity | undefined {
    return this.messages.find((message) => message.id === id);
  }

  /** The ids of the thread's active branch, oldest first. */
  activeBranch(threadId: string): string[] {
    return this.branchOf(threadId).map((message) => message.id);
  }

  readonly db = {
    transaction: async <T>(work: (tx: EntityManager) => Promise<T>): Promise<T> => {
      const messages = this.messages.map((message) => Object.assign(new MessageEntity(), message));
      const threads = [...this.threads.values()].map((thread) => Object.assign(new ThreadEntity(), thread));
      this.timeline.push('begin');
      try {
        const result = await work(this.tx);
        this.timeline.push('commit');
        return result;
      } catch (error) {
        this.messages = messages;
        this.threads.clear();
        for (const thread of threads) this.threads.set(thread.id, thread);
        this.timeline.push('rollback');
        throw error;
      }
    },
  } as unknown as DataSource;

  /** The transaction: only recordWebhookEvent writes through it directly (the webhook outbox's insert). */
  readonly tx = {
    query: (_sql: string, [, , type, payload]: [string, string, string, string]) => {
      const { data } = JSON.parse(payload) as { data: { id: string; status: string } };
      this.webhookEvents.push(`${type} ${data.id} ${data.status}`);
      return Promise.resolve([]);
    },
  } as unknown as EntityManager;

  readonly threadRepository = {
    lockVisible: (_tx: EntityManager, scope: Scope, id: string) => {
      const thread = this.threads.get(id);
      const visible =
        thread &&
        thread.orgId === scope.orgId &&
        (scope.userId === undefined || thread.userId === scope.userId) &&
        thread.archivedAt === null;
      return Promise.resolve(visible ? thread : null);
    },
    archive: (_tx: EntityManager, _scope: Scope, id: string) => {
      this.threads.get(id)!.archivedAt = new Date();
      return Promise.resolve();
    },
  } as unknown as ThreadRepository;

  readonly messageRepository = {
    findVisibleState: (scope: Scope, id: string) => {
      const message = this.message(id);
      const thread = message && this.threads.get(message.threadId);
      const visible =
        thread &&
        message.orgId === scope.orgId &&
        thread.archivedAt === null &&
        (scope.userId === undefined || thread.userId === scope.userId);
      return Promise.resolve(visible ? { id: message.id, live: message.live } : null);
    },
    find: (scope: Scope, id: string) => {
      const message = this.message(id);
      return Promise.resolve(message?.orgId === scope.orgId ? message : null);
    },
    hasFollower: (_scope: Scope, threadId: string, id: string) =>
      Promise.resolve(
        this.messages.some((message) => message.threadId === threadId && message.parentId === id),
      ),
    setActiveLeaf: (_tx: EntityManager, _scope: Scope, threadId: string, leafId: string) => {
      this.threads.get(threadId)!.activeLeafId = leafId;
      return Promise.resolve();
    },
    findInThread: (_scope: Scope, threadId: string, id: string) =>
      Promise.resolve(
        this.messages.find((message) => message.threadId === threadId && message.id === id) ?? null,
      ),
    listActiveBranch: (_scope: Scope, threadId: string) => Promise.resolve(this.branchOf(threadId)),
    liveReplies: (_scope: Scope, threadId: string) =>
      Promise.resolve(
        this.messages
          .filter((message) => message.threadId === threadId && message.live && message.role === 'assistant')
          .map(({ id, status }) => ({ id, status })),
      ),
    lockUnheldReplies: (_tx: EntityManager, _scope: Scope, threadId: string, onlyId?: string) =>
      Promise.resolve(
        this.messages.filter(
          (message) =>
            message.threadId === threadId &&
            message.live &&
            (message.status === 'pending' || message.status === 'requires_action') &&
            (onlyId === undefined || message.id === onlyId),
        ),
      ),
    // The ending statement closes the row and queues its webhook event in the same transaction.
    cancelUnheldReply: (_tx: EntityManager, _scope: Scope, replyId: string, event: WebhookEvent) => {
      const message = this.messages.find((candidate) => candidate.id === replyId && candidate.live);
      if (!message) return Promise.resolve(null);
      Object.assign(message, { status: 'cancelled', live: false });
      const { id, status } = event.payload.data as { id: string; status: string };
      this.webhookEvents.push(`${event.type} ${id} ${status}`);
      return Promise.resolve(message);
    },
    addExchange: (
      _tx: EntityManager,
      _scope: Scope,
      thread: ThreadEntity,
      exchange: NewExchange,
      parentId?: string | null,
    ) => {
      const question = this.store(thread, {
        role: 'user',
        status: 'success',
        live: false,
        content: exchange.message.content,
        fileIds: exchange.message.fileIds,
        parentId: parentId !== undefined ? parentId : thread.activeLeafId,
      });
      const reply = this.storeReply(thread, question, exchange.reply);
      return Promise.resolve({ question, reply });
    },
    addReply: (
      _tx: EntityManager,
      _scope: Scope,
      thread: ThreadEntity,
      question: MessageEntity,
      reply: NewPendingReply,
    ) => Promise.resolve(this.storeReply(thread, question, reply)),
    orgBacklogBefore: (_scope: Scope, reply: MessageEntity) =>
      Promise.resolve(
        this.messages
          .slice(0, this.messages.indexOf(reply))
          .filter((message) => message.orgId === reply.orgId && message.live && message.role === 'assistant')
          .length,
      ),
  } as unknown as MessageRepository;

  readonly agentRepository = {
    findById: (id: string) => Promise.resolve(this.agents.find((agent) => agent.id === id) ?? null),
    findActive: (orgId: string, id: string) =>
      Promise.resolve(
        this.agents.find((agent) => agent.orgId === orgId && agent.id === id && !agent.archivedAt) ?? null,
      ),
    findMany: (orgId: string, ids: string[]) =>
      Promise.resolve(this.agents.filter((agent) => agent.orgId === orgId && ids.includes(agent.id))),
  } as unknown as AgentRepository;

  /** Every agent has versions 1 and 2. */
  readonly versionRepository = {
    exists: (_scope: Scope, _agentId: string, version: number) =>
      Promise.resolve(version === 1 || version === 2),
  } as unknown as AgentVersionRepository;

  /** Admission control that admits every reply (its refusal is start-thread.use-case.spec's). */
  readonly admission: ReplyAdmission = { admit: (start) => start() };

  readonly agentRuns = {
    enqueue: (job: AgentRunJob, backlog: number) => {
      this.timeline.push(`enqueue ${job.messageId}`);
      if (this.queueDown) return Promise.reject(new Error('Redis is down'));
      this.enqueued.push({ job, backlog });
      return Promise.resolve();
    },
    enqueueAgain: (job: AgentRunJob) => {
      this.timeline.push(`enqueueAgain ${job.messageId}`);
      if (this.queueDown) return Promise.reject(new Error('Redis is down'));
      this.enqueuedAgain.push(job);
      return Promise.resolve();
    },
  } as unknown as AgentRunQueue;

  readonly cancellation = {
    requestCancel: (request: RunCancellationRequest) => {
      this.timeline.push(`requestCancel ${request.messageId ?? `thread ${request.threadId}`}`);
      this.cancelRequests.push(request);
      return Promise.resolve();
    },
  } as unknown as RunCancellation;

  /** No files are attached in these specs; a file id is checked to be the thread owner's. */
  readonly attachments = {
    requireUploaded: (scope: Scope, ids: string[]) => {
      if (ids.length > 0) this.timeline.push(`requireUploaded ${scope.userId} ${ids.join(',')}`);
      return Promise.resolve([]);
    },
    filesByMessage: () => Promise.resolve(new Map<string, ConversationFileResponse[]>()),
  } as unknown as FileAttachments;

  readonly idempotencyKeys = {
    recordAnswer: (tx: EntityManager, _write: unknown, answer: unknown) => {
      this.timeline.push(tx === this.tx ? 'recordAnswer in tx' : 'recordAnswer outside tx');
      this.answersRecorded.push(answer);
      return Promise.resolve();
    },
  } as unknown as IdempotencyKeyRepository;

  /** How a follow-up, a regenerate or an edit adds its reply, over the collaborators above. */
  readonly replies = new ThreadReplies(
    this.db,
    this.threadRepository,
    this.messageRepository,
    this.agentRepository,
    this.agentRuns,
    this.cancellation,
    this.idempotencyKeys,
    this.admission,
  );

  /** How an archive (and a protocol's cancel) stops replies, over the collaborators above. */
  readonly stopper = new StopThreadReplies(
    this.db,
    this.threadRepository,
    this.messageRepository,
    this.agentRepository,
    this.cancellation,
    this.agentRuns,
  );

  private storeReply(thread: ThreadEntity, question: MessageEntity, reply: NewPendingReply): MessageEntity {
    const stored = this.store(thread, {
      role: 'assistant',
      status: 'pending',
      live: true,
      agentId: reply.agentId,
      maxSteps: reply.maxSteps,
      agentVersion: reply.agentVersion ?? null,
      parentId: question.id,
      replyToId: question.id,
    });
    thread.activeLeafId = stored.id;
    return stored;
  }

  private store(thread: ThreadEntity, values: Partial<MessageEntity>): MessageEntity {
    const position = this.messages.filter((message) => message.threadId === thread.id).length;
    const message = Object.assign(new MessageEntity(), {
      id: `msg-${this.nextId++}`,
      threadId: thread.id,
      orgId: thread.orgId,
      position,
      content: '',
      errorCode: null,
      questions: null,
      events: null,
      structuredOutput: null,
      agentId: null,
      replyToId: null,
      fileIds: [],
      agentVersion: null,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)),
      ...values,
    });
    this.messages.push(message);
    return message;
  }

  private branchOf(threadId: string): MessageEntity[] {
    const branch: MessageEntity[] = [];
    let id = this.threads.get(threadId)?.activeLeafId ?? null;
    while (id !== null) {
      const message = this.message(id);
      if (!message) break;
      branch.unshift(message);
      id = message.parentId;
    }
    return branch;
  }
}
