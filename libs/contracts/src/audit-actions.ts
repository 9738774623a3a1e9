/**
 * Every action the audit log records (CONTRACTS §20), as `GET /audit-events` spells it. The values are stored, so
 * one is never renamed; a new kind of change is a new name. Erasure and retention entries are written by their
 * own use cases with the names listed here (`erasure.requested`, `user.erased`, `retention.updated`).
 */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'agent.restored',
  'mcp_server.registered',
  'mcp_server.removed',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'budget.updated',
  'budget.deleted',
  'skill.scope_changed',
  'erasure.requested',
  'user.erased',
  'retention.updated',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * What an entry's target is. `end_user` ids are always `endUserHash(...)`, never the user id; `organization` is
 * the organization's own settings (retention); `mcp_server` is a catalogue name (deployment-wide).
 */
export const AUDIT_TARGET_TYPES = [
  'key',
  'agent',
  'mcp_server',
  'webhook',
  'end_user',
  'skill',
  'erasure',
  'organization',
] as const;

export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** Who made the change: a service key (its id) or the operator through the admin CLI (the OS user running it). */
export interface AuditActor {
  type: 'key' | 'admin';
  id: string;
}
