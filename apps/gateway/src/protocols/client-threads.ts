import { isRowId } from '@app/contracts';
import { AiSdkChatRepository, ChatOwner, ThreadRepository } from '@app/persistence';

/**
 * The thread a front end's own thread id (the AI SDK's chat id, AG-UI's threadId) is bound to. An id not bound yet
 * that is the id of one of the owner's threads binds to that thread, so a front end can continue a thread it
 * listed (GET /chat); any other answers null.
 */
export async function boundThreadId(
  chats: AiSdkChatRepository,
  threads: ThreadRepository,
  owner: ChatOwner,
  clientThreadId: string,
): Promise<string | null> {
  const bound = await chats.findThreadId(owner, clientThreadId);
  if (bound || !isRowId(clientThreadId)) return bound;
  const thread = await threads.findVisible(owner, clientThreadId);
  if (!thread) return null;
  await chats.bind(owner, clientThreadId, thread.id);
  return thread.id;
}
