import { Injectable, Logger } from '@nestjs/common';
import { Settings } from '@app/config';
import { NotFoundError, StartChatDto, ThreadResponse, toThreadResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { FileAttachments } from '@app/files';
import { AGENT_NOT_FOUND, enqueueStoredReply, exchangeOf, isRowId, nameFrom } from './chat.rules';

/** Where a thread comes from when a routine starts it (CONTRACTS §13), instead of a person. */
export interface RoutineOrigin {
  /**
   * A scheduled firing's thread id, derived from the routine and its slot: storing the same firing twice fails on
   * the thread's primary key. Absent for a firing asked for by hand (POST /routines/{id}/run).
   */
  threadId?: string;
  name: string;
}

/**
 * POST /chat: stores the thread, the user's message and the pending reply (one statement), enqueues the run,
 * answers at once. A routine's firing starts its thread here too, with `inception: "routine"`.
 */
@Injectable()
export class StartThread {
  private readonly logger = new Logger(StartThread.name);

  constructor(
    private readonly settings: Settings,
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agentRuns: AgentRunQueue,
    private readonly attachments: FileAttachments,
  ) {}

  async execute(caller: Caller, input: StartChatDto, routine?: RoutineOrigin): Promise<ThreadResponse> {
    const scope = { orgId: caller.orgId, userId: input.options.user_id };
    const agent = isRowId(input.options.agent_id)
      ? await this.agents.findActive(caller.orgId, input.options.agent_id)
      : null;
    if (!agent) throw new NotFoundError(AGENT_NOT_FOUND);
    // Spec 4.2 rules 1-3: the given namespace, else the agent's, else none; bound for the thread's life.
    const memoryNamespace = input.options.memory_namespace ?? agent.memoryNamespace ?? null;
    const { message } = input;
    const files = await this.attachments.requireUploaded(scope, message.file_ids ?? []);

    const thread = this.threads.build(scope, {
      agentId: agent.id,
      name: input.name?.trim() ? input.name : nameFrom(message.content),
      projectId: input.project_id ?? null,
      memoryNamespace,
      ...(routine ? { name: routine.name, inception: 'routine' as const } : {}),
      ...(routine?.threadId ? { id: routine.threadId } : {}),
    });
    const { question, reply } = await this.messages.startThread(
      thread,
      exchangeOf(message, {
        agentId: agent.id,
        maxSteps: input.options.max_steps ?? this.settings.defaultMaxSteps,
      }),
    );

    await enqueueStoredReply(this.agentRuns, this.messages, this.logger, reply, caller.requestId);
    // A new thread's only files are those just attached (file_ids order), none written by an agent yet.
    const filesByMessage = new Map([[question.id, await this.attachments.toResponses(files)]]);
    return toThreadResponse(thread, [question, reply], [agent], filesByMessage);
  }
}
