import { DataSource, EntityManager } from 'typeorm';
import { Settings } from '@app/config';
import { AgentRunJob, AtCapacityError, NotFoundError, StartChatDto } from '@app/contracts';
import { FileAttachments } from '@app/files';
import { Caller } from '@app/identity';
import {
  AgentEntity,
  AgentRepository,
  AgentVersionRepository,
  IdempotencyKeyRepository,
  IdempotentWrite,
  MessageEntity,
  MessageRepository,
  NewExchange,
  NewThread,
  Scope,
  ThreadEntity,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { ReplyAdmission } from './reply-admission';
import { StartThread } from './start-thread.use-case';

const AGENT_ID = '0190a5e4-0000-7000-8000-000000000001';
const agent = Object.assign(new AgentEntity(), {
  id: AGENT_ID,
  orgId: 'o',
  name: 'helper',
  memoryNamespace: 'agent-ns',
  archivedAt: null,
});
const caller: Caller = { orgId: 'o', keyId: 'k', requestId: 'req-1' };
const TX = { transaction: 'tx' } as unknown as EntityManager;

/** StartThread's collaborators in memory: what each was asked, in order, and what it stored. */
function world(options: { enqueueFails?: boolean; atCapacity?: boolean } = {}) {
  const calls: string[] = [];
  const stored: { thread?: ThreadEntity; exchange?: NewExchange; tx?: EntityManager } = {};
  const enqueued: { job: AgentRunJob; backlog: number }[] = [];
  const agentLookups: string[] = [];
  const db = {
    transaction: async <T>(work: (tx: EntityManager) => Promise<T>) => {
      calls.push('begin');
      const result = await work(TX);
      calls.push('commit');
      return result;
    },
  };
  const agents = {
    findActive: (orgId: string, id: string) => (
      agentLookups.push(id),
      Promise.resolve(orgId === agent.orgId && id === agent.id ? agent : null)
    ),
  };
  const admission: ReplyAdmission = {
    admit: (start) =>
      options.atCapacity
        ? Promise.reject(new AtCapacityError('Service at capacity; retry later', 1))
        : start(),
  };
  const threads = {
    build: (scope: Scope, values: NewThread) =>
      Object.assign(new ThreadEntity(), {
        id: 'thread-1',
        orgId: scope.orgId,
        userId: scope.userId ?? null,
        starred: false,
        inception: 'conversational',
        archivedAt: null,
        createdAt: new Date('2026-01-01T00:00:00Z'),
        ...values,
      }),
  };
  const row = (values: Partial<MessageEntity>) =>
    Object.assign(new MessageEntity(), {
      threadId: 'thread-1',
      orgId: 'o',
      errorCode: null,
      questions: null,
      events: null,
      structuredOutput: null,
      ...values,
    });
  const messages = {
    startThread: (_scope: Scope, thread: ThreadEntity, exchange: NewExchange, tx?: EntityManager) => {
      calls.push(tx ? 'startThread in tx' : 'startThread');
      Object.assign(stored, { thread, exchange, tx });
      return Promise.resolve({
        question: row({
          id: 'q',
          role: 'user',
          content: exchange.message.content,
          live: false,
          status: 'success',
          agentId: null,
        }),
        reply: row({
          id: 'r',
          role: 'assistant',
          content: '',
          live: true,
          status: 'pending',
          agentId: AGENT_ID,
        }),
      });
    },
    orgBacklogBefore: () => Promise.resolve(2),
  };
  const agentRuns = {
    enqueue: (job: AgentRunJob, backlog: number) => {
      calls.push('enqueue');
      if (options.enqueueFails) return Promise.reject(new Error('Redis is down'));
      enqueued.push({ job, backlog });
      return Promise.resolve();
    },
  };
  const attachments = {
    requireUploaded: (_scope: Scope, ids: string[]) => (
      calls.push(`requireUploaded ${ids.length}`),
      Promise.resolve(ids.map((id) => ({ id })))
    ),
    toResponses: (_scope: Scope, files: { id: string }[]) => (
      calls.push(`toResponses ${files.length}`),
      Promise.resolve(files.map((file) => ({ id: file.id, filename: `${file.id}.txt` })))
    ),
  };
  const idempotencyKeys = {
    recordAnswer: (tx: EntityManager) => (
      calls.push(tx === TX ? 'recordAnswer in tx' : 'recordAnswer'),
      Promise.resolve()
    ),
  };
  // Only a pinned request asks; these tests pin none.
  const versions = {};
  const useCase = new StartThread(
    db as unknown as DataSource,
    Object.assign(new Settings(), { defaultMaxSteps: 7 }),
    agents as unknown as AgentRepository,
    versions as unknown as AgentVersionRepository,
    threads as unknown as ThreadRepository,
    messages as unknown as MessageRepository,
    agentRuns as unknown as AgentRunQueue,
    attachments as unknown as FileAttachments,
    idempotencyKeys as unknown as IdempotencyKeyRepository,
    admission,
  );
  return { useCase, calls, stored, enqueued, agentLookups };
}

const chat = (
  values: Partial<StartChatDto> = {},
  options: Partial<StartChatDto['options']> = {},
): StartChatDto =>
  ({
    message: { content: '\n  First line  \nsecond line' },
    options: { agent_id: AGENT_ID, user_id: 'alice', ...options },
    ...values,
  }) as StartChatDto;

describe('StartThread', () => {
  it('stores the thread and its exchange in one statement, then enqueues the reply at its place in the backlog', async () => {
    const { useCase, calls, stored, enqueued } = world();

    const thread = await useCase.execute(caller, chat());

    expect(calls).toEqual(['startThread', 'enqueue']);
    // Spec 4.2: the name from the first non-blank line, the agent's namespace, the server's default steps.
    expect(stored.thread).toMatchObject({
      orgId: 'o',
      userId: 'alice',
      name: 'First line',
      memoryNamespace: 'agent-ns',
    });
    expect(stored.exchange?.reply).toEqual({ agentId: AGENT_ID, maxSteps: 7 });
    expect(enqueued).toEqual([
      { job: { messageId: 'r', threadId: 'thread-1', requestId: 'req-1' }, backlog: 2 },
    ]);
    expect(thread).toMatchObject({
      id: 'thread-1',
      name: 'First line',
      live: true,
      inception: 'conversational',
    });
    expect(thread.messages.map((message) => [message.id, message.status])).toEqual([
      ['q', 'success'],
      ['r', 'pending'],
    ]);
    expect(thread.messages[1].agent).toEqual({ id: AGENT_ID, name: 'helper' });
  });

  it("looks up the message's files before storing it and answers them with it; a message without files asks nothing", async () => {
    const { useCase, calls, stored } = world();
    const message = { content: 'see attached', file_ids: ['f1', 'f2'] };

    const thread = await useCase.execute(caller, chat({ message } as Partial<StartChatDto>));

    expect(calls).toEqual(['requireUploaded 2', 'toResponses 2', 'startThread', 'enqueue']);
    expect(stored.exchange?.message.fileIds).toEqual(['f1', 'f2']);
    expect(thread.messages[0].files).toEqual([
      { id: 'f1', filename: 'f1.txt' },
      { id: 'f2', filename: 'f2.txt' },
    ]);
    const empty = world();
    await empty.useCase.execute(
      caller,
      chat({ message: { content: 'hi', file_ids: [] } } as Partial<StartChatDto>),
    );
    expect(empty.calls).toEqual(['startThread', 'enqueue']);
  });

  it('answers 404 for an unknown agent or an id that is no UUID, storing and enqueueing nothing', async () => {
    for (const agentId of ['0190a5e4-0000-7000-8000-000000000999', 'not-a-uuid']) {
      const { useCase, calls } = world();
      await expect(useCase.execute(caller, chat({}, { agent_id: agentId }))).rejects.toThrow(NotFoundError);
      expect(calls).toEqual([]);
    }
  });

  it('records the answer of an idempotent request in the transaction that stores the thread, and enqueues after it', async () => {
    const { useCase, calls, stored } = world();
    await useCase.execute(caller, chat(), { idempotency: {} as IdempotentWrite });
    expect(calls).toEqual(['begin', 'startThread in tx', 'recordAnswer in tx', 'commit', 'enqueue']);
    expect(stored.tx).toBe(TX);
  });

  it("starts a routine's thread under the routine's name and id, with the request's own namespace and steps", async () => {
    const { useCase, stored } = world();
    const thread = await useCase.execute(caller, chat({}, { memory_namespace: 'mine', max_steps: 3 }), {
      routine: { threadId: 'firing-1', name: 'Daily 09:00' },
    });
    expect(stored.thread).toMatchObject({
      id: 'firing-1',
      name: 'Daily 09:00',
      inception: 'routine',
      memoryNamespace: 'mine',
    });
    expect(stored.exchange?.reply.maxSteps).toBe(3);
    expect(thread.inception).toBe('routine');
  });

  it('refuses a reply admission control turns away before reading or storing anything', async () => {
    const { useCase, calls, stored, enqueued, agentLookups } = world({ atCapacity: true });
    await expect(useCase.execute(caller, chat())).rejects.toThrow(AtCapacityError);
    expect(agentLookups).toEqual([]);
    expect(calls).toEqual([]);
    expect(stored).toEqual({});
    expect(enqueued).toEqual([]);
  });

  it('answers the stored thread when enqueueing fails: the sweep enqueues the pending reply later', async () => {
    const { useCase, calls } = world({ enqueueFails: true });
    await expect(useCase.execute(caller, chat())).resolves.toMatchObject({ id: 'thread-1', live: true });
    expect(calls).toEqual(['startThread', 'enqueue']);
  });
});
