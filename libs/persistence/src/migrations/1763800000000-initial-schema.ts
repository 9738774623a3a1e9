import { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations, API keys, agents, threads and messages: the core of the chat loop. */
export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        token_budget bigint,
        tokens_used bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL DEFAULT '',
        key_hash char(64) NOT NULL UNIQUE,
        kind text NOT NULL CHECK (kind IN ('sk-svc', 'legacy')),
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_org_id_idx ON api_keys (org_id)`);
    await queryRunner.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        instructions text NOT NULL DEFAULT '',
        model text NOT NULL DEFAULT 'builtin',
        model_options jsonb NOT NULL DEFAULT '{}',
        memory_namespace varchar(128),
        token_budget bigint,
        tokens_used bigint NOT NULL DEFAULT 0,
        tools jsonb,
        mcp_servers jsonb NOT NULL DEFAULT '[]',
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX agents_org_id_idx ON agents (org_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE threads (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id text,
        agent_id uuid NOT NULL REFERENCES agents(id),
        name text NOT NULL,
        project_id text,
        memory_namespace varchar(128),
        starred boolean NOT NULL DEFAULT false,
        inception text NOT NULL DEFAULT 'conversational' CHECK (inception IN ('conversational', 'routine')),
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The thread listing: one user's visible threads, newest first (GET /chat).
    await queryRunner.query(
      `CREATE INDEX threads_listing_idx ON threads (org_id, user_id, created_at DESC, id DESC) WHERE archived_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY,
        thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        position integer NOT NULL,
        role text NOT NULL CHECK (role IN ('user', 'assistant')),
        content text NOT NULL DEFAULT '',
        error_code text,
        questions jsonb,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'success', 'error', 'cancelled')),
        live boolean NOT NULL,
        events jsonb,
        structured_output jsonb,
        agent_id uuid REFERENCES agents(id),
        reply_to_id uuid REFERENCES messages(id),
        file_ids jsonb NOT NULL DEFAULT '[]',
        source_ids jsonb,
        document_ids jsonb,
        disabled_tools jsonb,
        max_steps integer,
        usage_tokens integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CONSTRAINT messages_thread_position_key UNIQUE (thread_id, position)
      )`);
    // Live replies: Thread.live, the per-thread run order and the sweep of forgotten replies.
    await queryRunner.query(`CREATE INDEX messages_live_idx ON messages (thread_id, position) WHERE live`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE messages`);
    await queryRunner.query(`DROP TABLE threads`);
    await queryRunner.query(`DROP TABLE agents`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE organizations`);
  }
}
