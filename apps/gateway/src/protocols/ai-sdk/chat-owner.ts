import { InvalidInputError, LocRoot, NotFoundError, pydanticIssue } from '@app/contracts';
import { Caller } from '@app/identity';
import { AiSdkChatRepository, ChatOwner } from '@app/persistence';

export const CHAT_NOT_FOUND = 'Chat not found';

/**
 * Whose chat ids these are: the end user of an end-user token, or with a service key the `user_id` it names
 * (required: chat ids are per end user, so a key alone names no chat).
 */
export function chatOwner(caller: Caller, userId: string | undefined, loc: [LocRoot, 'user_id']): ChatOwner {
  const owner = caller.endUser?.userId ?? userId;
  if (!owner) throw new InvalidInputError([pydanticIssue('missing', loc, null)]);
  return { orgId: caller.orgId, userId: owner };
}

/** The thread the owner's chat id is bound to; 404 when it is bound to none. */
export async function chatThreadId(
  chats: AiSdkChatRepository,
  owner: ChatOwner,
  chatId: string,
): Promise<string> {
  const threadId = await chats.findThreadId(owner, chatId);
  if (!threadId) throw new NotFoundError(CHAT_NOT_FOUND);
  return threadId;
}
