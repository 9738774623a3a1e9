import { ThreadResponse, toThreadResponse } from '@app/contracts';
import { AgentRepository, Db, MessageRepository, Scope, ThreadEntity } from '@app/persistence';
import { FileAttachments } from '@app/files';

/** What a thread's answer reads: its messages, the agents that wrote them and the files they carry. */
export interface ThreadViewReaders {
  messages: MessageRepository;
  agents: AgentRepository;
  attachments: FileAttachments;
}

/**
 * A thread as every answer that holds its messages shows it (CONTRACTS §19): the active branch, oldest first,
 * with each message's agent and files, read for the caller's `scope`. `db`: the transaction that just changed it,
 * if any.
 */
export async function activeBranchView(
  scope: Scope,
  thread: ThreadEntity,
  readers: ThreadViewReaders,
  db?: Db,
): Promise<ThreadResponse> {
  const messages = await readers.messages.listActiveBranch(scope, thread.id, db);
  const writers = new Set(
    messages.map((message) => message.agentId).filter((id): id is string => id !== null),
  );
  const agents = await readers.agents.findMany(scope.orgId, [...writers], db);
  const files = await readers.attachments.filesByMessage({ orgId: scope.orgId }, messages);
  return toThreadResponse(thread, messages, agents, files);
}
