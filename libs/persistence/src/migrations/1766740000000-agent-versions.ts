import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent versions (CONTRACTS §23): every create or change of an agent stores its whole configuration as an
 * immutable row, and a reply records the version it ran. The configuration is the agent's row as JSON minus its
 * bookkeeping (AGENT_BOOKKEEPING_COLUMNS), so a column added to agents later is part of every later version
 * without a change here. Existing agents get their current configuration as version 1.
 */
export class AgentVersions1766740000000 implements MigrationInterface {
  name = 'AgentVersions1766740000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE agent_versions (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL,
        agent_id uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
        version integer NOT NULL,
        config jsonb NOT NULL,
        actor_type text NOT NULL,
        actor_id text NOT NULL,
        restored_from integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT agent_versions_agent_version_key UNIQUE (agent_id, version)
      )`);
    await queryRunner.query(`ALTER TABLE agent_versions ENABLE ROW LEVEL SECURITY`);
    await queryRunner.query(`
      CREATE POLICY tenant_scope ON agent_versions TO parley_tenant
        USING (org_id = NULLIF(current_setting('parley.org_id', true), '')::uuid)`);
    await queryRunner.query(`
      INSERT INTO agent_versions (id, org_id, agent_id, version, config, actor_type, actor_id, created_at)
      SELECT gen_random_uuid(), a.org_id, a.id, 1,
             to_jsonb(a) - ARRAY['id', 'org_id', 'tokens_used', 'archived_at', 'created_at'],
             'admin', 'migration', a.created_at
      FROM agents a`);
    // A pinned reply names its version when stored; any other reply when its run first starts.
    await queryRunner.query(`ALTER TABLE messages ADD COLUMN agent_version integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN agent_version`);
    await queryRunner.query(`DROP TABLE agent_versions`);
  }
}
