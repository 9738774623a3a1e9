import { InvalidInputError, LocRoot, pydanticIssue } from '@app/contracts';
import { Caller } from '@app/identity';
import { ChatOwner } from '@app/persistence';

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
