import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { NotFoundError, StartChatDto, ThreadResponse, toThreadResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { AgentRepository, MessageRepository, ThreadRepository } from '@app/persistence';
import { AgentRunQueue } from '@app/queues';
import { FileAttachments } from '@app/storage';
import { AGENT_NOT_FOUND, enqueueStoredReply, isRowId, nameFrom, storeExchange } from '../chat.rules';

/** POST /chat: stores the thread, the user's message and the pending reply, enqueues the run, answers at once. */
@Injectable()
export class StartThread {
  private readonly logger = new Logger(StartThread.name);

  constructor(
    private readonly db: DataSource,
    private readonly settings: Settings,
    private readonly agents: AgentRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly agentRuns: AgentRunQueue,
    private readonly attachments: FileAttachments,
  ) {}

  async execute(caller: Caller, input: StartChatDto): Promise<ThreadResponse> {
    const scope = { orgId: caller.orgId, userId: input.options.user_id };
    const agent = isRowId(input.options.agent_id)
      ? await this.agents.findActive(caller.orgId, input.options.agent_id)
      : null;
    if (!agent) throw new NotFoundError(AGENT_NOT_FOUND);
    // Spec 4.2 rules 1-3: the given namespace, else the agent's, else none; bound for the thread's life.
    const memoryNamespace = input.options.memory_namespace ?? agent.memoryNamespace ?? null;
    const { message } = input;
    await this.attachments.requireUploaded(scope, message.file_ids ?? []);

    const { thread, question, reply } = await this.db.transaction(async (tx) => {
      const thread = await this.threads.create(tx, scope, {
        agentId: agent.id,
        name: input.name?.trim() ? input.name : nameFrom(message.content),
        projectId: input.project_id ?? null,
        memoryNamespace,
      });
      const { question, reply } = await storeExchange(this.messages, tx, thread, message, {
        agentId: agent.id,
        maxSteps: input.options.max_steps ?? this.settings.defaultMaxSteps,
      });
      return { thread, question, reply };
    });

    await enqueueStoredReply(this.agentRuns, this.logger, {
      messageId: reply.id,
      threadId: thread.id,
      requestId: caller.requestId,
    });
    const files = await this.attachments.filesByMessage(scope, [question]);
    return toThreadResponse(thread, [question, reply], [agent], files);
  }
}
