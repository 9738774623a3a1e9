import type { AuditActor } from '@app/contracts';

/** The end user an end-user token acts as (CONTRACTS §17), and the agents it may use (null: any). */
export interface PinnedEndUser {
  userId: string;
  agentIds: string[] | null;
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

/** The audit log's actor for a change made with the caller's service key. */
export const auditActorOf = (caller: Caller): AuditActor => ({ type: 'key', id: caller.keyId });
