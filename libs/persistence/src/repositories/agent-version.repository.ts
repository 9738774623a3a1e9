import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor } from '@app/contracts';
import { AgentEntity, newId } from '../entities';
import { entityFromJson } from './entity-rows';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

/**
 * The columns of an agent that are not its configuration: who it is, what it spent, whether it is archived. Every
 * other column is part of a version, so a column added to agents is versioned without a change here.
 */
export const AGENT_BOOKKEEPING_COLUMNS = ['id', 'org_id', 'tokens_used', 'archived_at', 'created_at'];

/** One immutable version of an agent (CONTRACTS §23). */
export interface AgentVersion {
  id: string;
  agentId: string;
  version: number;
  /** The agent as it was: its current row with this version's configuration laid over it. */
  agent: AgentEntity;
  actor: AuditActor;
  /** The version a restore copied; null for a create or a change. */
  restoredFrom: number | null;
  createdAt: Date;
}

interface AgentVersionRow {
  id: string;
  agent_id: string;
  version: number;
  agent: Record<string, unknown>;
  actor_type: AuditActor['type'];
  actor_id: string;
  restored_from: number | null;
  created_at: Date;
}

const SELECT_VERSION = `SELECT v.id, v.agent_id, v.version, to_jsonb(a) || v.config AS agent, v.actor_type, v.actor_id,
    v.restored_from, v.created_at
  FROM agent_versions v JOIN agents a ON a.id = v.agent_id`;

/** The versions of agents: written in the transaction of each change, never changed afterwards. */
@Injectable()
export class AgentVersionRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores the agent's configuration as it is now in `tx` as its next version, and returns that version's
   * number. The change it records holds the agent's row lock until commit, so two changes number in order.
   */
  async record(
    tx: Db,
    scope: Pick<Scope, 'orgId'>,
    agentId: string,
    actor: AuditActor,
    restoredFrom: number | null = null,
  ): Promise<number> {
    return withTenant(tx, scope, async (tenant) => {
      const [row]: { version: number }[] = await tenant.query(
        `INSERT INTO agent_versions (id, org_id, agent_id, version, config, actor_type, actor_id, restored_from)
         SELECT $1, a.org_id, a.id,
                COALESCE((SELECT max(v.version) FROM agent_versions v WHERE v.agent_id = a.id), 0) + 1,
                to_jsonb(a) - $4::text[], $5, $6, $7
         FROM agents a WHERE a.org_id = $2 AND a.id = $3
         RETURNING version`,
        [newId(), scope.orgId, agentId, AGENT_BOOKKEEPING_COLUMNS, actor.type, actor.id, restoredFrom],
      );
      return row.version;
    });
  }

  /**
   * Makes the agent's configuration that of `version` again, in `tx`; false when the agent (active) or the
   * version does not exist. Every configuration column is set, from the version's value or, for a column newer
   * than the version, the agent's current one.
   */
  async restore(tx: Db, scope: Pick<Scope, 'orgId'>, agentId: string, version: number): Promise<boolean> {
    const columns = this.db
      .getMetadata(AgentEntity)
      .columns.map((column) => column.databaseName)
      .filter((column) => !AGENT_BOOKKEEPING_COLUMNS.includes(column));
    return withTenant(tx, scope, async (tenant) => {
      const [, affected]: [unknown, number] = await tenant.query(
        `UPDATE agents a SET (${columns.join(', ')}) = (
           SELECT ${columns.map((column) => `r.${column}`).join(', ')}
           FROM agent_versions v, jsonb_populate_record(a, v.config) r
           WHERE v.agent_id = a.id AND v.version = $3)
         WHERE a.org_id = $1 AND a.id = $2 AND a.archived_at IS NULL
           AND EXISTS (SELECT 1 FROM agent_versions v WHERE v.agent_id = a.id AND v.version = $3)`,
        [scope.orgId, agentId, version],
      );
      return affected > 0;
    });
  }

  /** The agent's versions, newest first, before the version whose row id is `beforeId` when given. */
  list(
    scope: Pick<Scope, 'orgId'>,
    agentId: string,
    page: { beforeId?: string; limit: number },
  ): Promise<AgentVersion[]> {
    return withTenant(this.db, scope, async (tx) => {
      const rows: AgentVersionRow[] = await tx.query(
        `${SELECT_VERSION}
         WHERE v.org_id = $1 AND v.agent_id = $2
           AND ($3::uuid IS NULL OR v.version < (SELECT b.version FROM agent_versions b WHERE b.id = $3))
         ORDER BY v.version DESC LIMIT $4`,
        [scope.orgId, agentId, page.beforeId ?? null, page.limit],
      );
      return rows.map((row) => this.toVersion(row));
    });
  }

  find(scope: Pick<Scope, 'orgId'>, agentId: string, version: number, db: Db = this.db.manager) {
    return withTenant(db, scope, async (tx) => {
      const [row]: AgentVersionRow[] = await tx.query(
        `${SELECT_VERSION} WHERE v.org_id = $1 AND v.agent_id = $2 AND v.version = $3`,
        [scope.orgId, agentId, version],
      );
      return row ? this.toVersion(row) : null;
    });
  }

  /** The agent's latest version number; null for an agent without versions. */
  async latest(scope: Pick<Scope, 'orgId'>, agentId: string): Promise<number | null> {
    return withTenant(this.db, scope, async (tx) => {
      const [row]: { version: number | null }[] = await tx.query(
        `SELECT max(version) AS version FROM agent_versions WHERE org_id = $1 AND agent_id = $2`,
        [scope.orgId, agentId],
      );
      return row.version;
    });
  }

  /** Whether the agent has that version (a pinned reply's must exist). */
  async exists(scope: Pick<Scope, 'orgId'>, agentId: string, version: number, db: Db = this.db.manager) {
    return withTenant(db, scope, async (tx) => {
      const [row]: { found: boolean }[] = await tx.query(
        `SELECT EXISTS (SELECT 1 FROM agent_versions WHERE org_id = $1 AND agent_id = $2 AND version = $3) AS found`,
        [scope.orgId, agentId, version],
      );
      return row.found;
    });
  }

  private toVersion(row: AgentVersionRow): AgentVersion {
    return {
      id: row.id,
      agentId: row.agent_id,
      version: row.version,
      agent: entityFromJson(this.db, AgentEntity, row.agent),
      actor: { type: row.actor_type, id: row.actor_id },
      restoredFrom: row.restored_from,
      createdAt: row.created_at,
    };
  }
}
