import { type AuditActor, ForbiddenError } from '@app/contracts';

/** What an end-user token is refused with where only a key may act (CONTRACTS §17, §21). */
export const END_USER_TOKEN_FORBIDDEN = 'Not allowed with an end-user token';

/**
 * The end user an end-user token acts as (CONTRACTS §17), the agents it may use (null: any) and the memory
 * namespaces its runs may be bound to (§21; empty: none).
 */
export interface PinnedEndUser {
  userId: string;
  agentIds: string[] | null;
  memoryNamespaces: string[];
}

/**
 * Who is calling: the organization of the key, the key itself and the request (for logs). With an end-user
 * token, `endUser` is the one end user it acts as; every `user_id` of the request is that one.
 */
export interface Caller {
  orgId: string;
  keyId: string;
  requestId: string;
  endUser?: PinnedEndUser;
}

/** Whether the caller may use this agent: a service key may use any of its organization's. */
export const mayUseAgent = (caller: Caller, agentId: string): boolean =>
  !caller.endUser?.agentIds || caller.endUser.agentIds.includes(agentId);

/**
 * Refuses (403) binding a run to a memory namespace the caller may not use (CONTRACTS §21): a key may use any
 * of its organization's; an end-user token only those it was minted with. Every new reply (a new thread, a
 * follow-up, a regenerate or an edit, whichever protocol carries it) is admitted through this before anything
 * is stored, so a run never reaches memory its caller could not.
 */
export function requireMemoryNamespaceAllowed(caller: Caller, namespace: string | null): void {
  if (namespace === null || !caller.endUser) return;
  if (!caller.endUser.memoryNamespaces.includes(namespace))
    throw new ForbiddenError(END_USER_TOKEN_FORBIDDEN);
}

/** The audit log's actor for a change made with the caller's service key. */
export const auditActorOf = (caller: Caller): AuditActor => ({ type: 'key', id: caller.keyId });
