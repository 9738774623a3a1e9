import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { endedReplyMessage, NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentRepository, MessageRepository, Scope, ThreadRepository } from '@app/persistence';
import { ReplyStream, RunEvent, RunEventReader, storedReplyLines } from '@app/run-events';
import { FileAttachments } from '@app/files';

interface OpenReplyStreamInput {
  messageId: string;
  after?: number;
  userId?: string;
}

/**
 * Opens the stream of a message the caller may see: its thread is of the key's organization, of the end
 * user when one is named, and not archived; anything else is 404 as if it did not exist.
 */
@Injectable()
export class OpenReplyStream {
  constructor(
    private readonly settings: Settings,
    private readonly messages: MessageRepository,
    private readonly threads: ThreadRepository,
    private readonly agents: AgentRepository,
    private readonly reader: RunEventReader,
    private readonly files: FileAttachments,
  ) {}

  async execute(caller: Caller, input: OpenReplyStreamInput): Promise<ReplyStream> {
    const scope = { orgId: caller.orgId, userId: input.userId };
    const message = await this.messages.findVisibleState(scope, input.messageId);
    if (!message || !(await this.mayUseThreadAgent(caller, scope, message.id))) {
      throw new NotFoundError('Message not found');
    }
    const messageId = message.id;
    // A reply live at this point has no Redis log only if it has not started (a run writes its lines before its
    // final row; a pending reply cancelled meanwhile gets its lines from the worker that takes its job), so the
    // first look that finds no log needs no query. Later ones (at heartbeats) ask PostgreSQL.
    let unstarted = message.live;
    return this.reader.follow(messageId, {
      after: input.after ?? -1,
      heartbeatMs: this.settings.streamHeartbeatMs,
      storedLines: () => {
        if (!unstarted) return this.storedLines(scope, messageId);
        unstarted = false;
        return Promise.resolve(null);
      },
    });
  }

  /**
   * An end-user token limited to some agents sees no message of another agent's thread. Only such a token pays
   * for the look-up: a key and an unlimited token use any agent of the organization.
   */
  private async mayUseThreadAgent(caller: Caller, scope: Scope, messageId: string): Promise<boolean> {
    if (!caller.endUser?.agentIds) return true;
    const message = await this.messages.find(scope, messageId);
    const thread = message && (await this.threads.findVisible({ orgId: caller.orgId }, message.threadId));
    return !!thread && mayUseAgent(caller, thread.agentId);
  }

  /** The finished reply's lines from PostgreSQL, for when its Redis log has expired; null while it is live. */
  private async storedLines(scope: Scope, messageId: string): Promise<RunEvent[] | null> {
    const message = await this.messages.find(scope, messageId);
    if (!message || message.live) return null;
    const [[agent], files] = await Promise.all([
      message.agentId ? this.agents.findMany(message.orgId, [message.agentId]) : [],
      this.files.filesByMessage({ orgId: message.orgId }, [message]),
    ]);
    return storedReplyLines(message, endedReplyMessage(message, agent, files.get(message.id)));
  }
}
