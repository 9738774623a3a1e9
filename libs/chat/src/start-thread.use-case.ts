import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { maxStepsOf, Settings } from '@app/config';
import { isRowId, NotFoundError, StartChatDto, ThreadResponse, toThreadResponse } from '@app/contracts';
import { Caller, mayUseAgent, requireMemoryNamespaceAllowed } from '@app/identity';
import {
  AgentRepository,
  AgentVersionRepository,
  IdempotencyKeyRepository,
  IdempotentWrite,
  MessageEntity,
  MessageRepository,
  ThreadRepository,
} from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { FileAttachments } from '@app/files';
import {
  AGENT_NOT_FOUND,
  enqueueStoredReply,
  exchangeOf,
  nameFrom,
  pinnedAgentVersion,
  ProtocolReplyOptions,
} from './chat.rules';
import { ReplyAdmission } from './reply-admission';

/** Where a thread comes from when a routine starts it (CONTRACTS §13), instead of a person. */
interface RoutineOrigin {
  /**
   * A scheduled firing's thread id, derived from the routine and its slot: storing the same firing twice fails on
   * the thread's primary key. Absent for a firing asked for by hand (POST /routines/{id}/run).
   */
  threadId?: string;
  name: string;
}

/** Who starts a thread besides the caller: a routine, or a request that holds an Idempotency-Key. */
export interface ThreadStart extends ProtocolReplyOptions {
  routine?: RoutineOrigin;
  /** Its answer is recorded in the transaction that stores the thread. */
  idempotency?: IdempotentWrite;
}

/**
 * POST /chat: stores the thread, the user's message and the pending reply (one statement; in a transaction with
 * the answer when the request holds an Idempotency-Key), enqueues the run, answers at once. A routine's firing
 * starts its thread here too, with `inception: "routine"`. Past capacity nothing is read or stored: ReplyAdmission
 * refuses first.
 */
@Injectable()
export class StartThread {
  private readonly logger = new Logger(StartThread.name);

  constructor(
    private readonly db: DataSource,
    private readonly settings: Settings,
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agentRuns: AgentRunQueue,
    private readonly attachments: FileAttachments,
    private readonly idempotencyKeys: IdempotencyKeyRepository,
    private readonly admission: ReplyAdmission,
  ) {}

  execute(caller: Caller, input: StartChatDto, options: ThreadStart = {}): Promise<ThreadResponse> {
    return this.admission.admit(() => this.start(caller, input, options));
  }

  private async start(
    caller: Caller,
    input: StartChatDto,
    { routine, idempotency, replyMetadata, agentVersionAt }: ThreadStart,
  ): Promise<ThreadResponse> {
    const scope = { orgId: caller.orgId, userId: input.options.user_id };
    const agent = isRowId(input.options.agent_id)
      ? await this.agents.findActive(caller.orgId, input.options.agent_id)
      : null;
    // An end-user token limited to some agents finds no other, as if they did not exist.
    if (!agent || !mayUseAgent(caller, agent.id)) throw new NotFoundError(AGENT_NOT_FOUND);
    // Spec 4.2 rules 1-3: the given namespace, else the agent's, else none; bound for the thread's life.
    const memoryNamespace = input.options.memory_namespace ?? agent.memoryNamespace ?? null;
    requireMemoryNamespaceAllowed(caller, memoryNamespace);
    const agentVersion = await pinnedAgentVersion(
      this.versions,
      agent,
      input.options.agent_version,
      undefined,
      agentVersionAt,
    );
    const { message } = input;
    // A message without files (most of them) has none to look up now nor to render below.
    const files = message.file_ids?.length
      ? await this.attachments.requireUploaded(scope, message.file_ids)
      : null;

    const thread = this.threads.build(scope, {
      agentId: agent.id,
      name: input.name?.trim() ? input.name : nameFrom(message.content),
      projectId: input.project_id ?? null,
      memoryNamespace,
      ...(routine ? { name: routine.name, inception: 'routine' as const } : {}),
      ...(routine?.threadId ? { id: routine.threadId } : {}),
    });
    const exchange = exchangeOf(message, {
      agentId: agent.id,
      maxSteps: maxStepsOf(this.settings, input.options.max_steps),
      agentVersion,
      metadata: replyMetadata,
    });
    // A new thread's only files are those just attached (file_ids order), none written by an agent yet.
    const fileResponses = files ? await this.attachments.toResponses(scope, files) : [];
    const respond = ({ question, reply }: { question: MessageEntity; reply: MessageEntity }) =>
      toThreadResponse(thread, [question, reply], [agent], new Map([[question.id, fileResponses]]));

    const { reply, response } = idempotency
      ? await this.db.transaction(async (tx) => {
          const stored = await this.messages.startThread(scope, thread, exchange, tx);
          const response = respond(stored);
          await this.idempotencyKeys.recordAnswer(tx, idempotency, response, { threadId: thread.id });
          return { reply: stored.reply, response };
        })
      : await this.messages
          .startThread(scope, thread, exchange)
          .then((stored) => ({ reply: stored.reply, response: respond(stored) }));

    await enqueueStoredReply(this.agentRuns, this.messages, this.logger, scope, reply, caller.requestId);
    return response;
  }
}
