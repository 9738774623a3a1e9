import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Checkpoints of agent runs: each step's model output as soon as the model call ends, and each tool call's
 * result under its idempotency key (`message_id:step:call_id`). A run resumed on another worker replays these
 * instead of calling the model or the tool again.
 */
export class RunCheckpoints1763810000000 implements MigrationInterface {
  name = 'RunCheckpoints1763810000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE run_steps (
        message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        step integer NOT NULL CHECK (step >= 1),
        text text NOT NULL DEFAULT '',
        tool_calls jsonb NOT NULL DEFAULT '[]',
        questions jsonb,
        structured_output jsonb,
        usage_tokens integer NOT NULL DEFAULT 0,
        content_length integer NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL,
        completed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (message_id, step)
      )`);
    await queryRunner.query(`
      CREATE TABLE tool_calls (
        idempotency_key text PRIMARY KEY,
        message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        step integer NOT NULL,
        call_id text NOT NULL,
        name text NOT NULL,
        arguments jsonb NOT NULL,
        output jsonb,
        is_error boolean NOT NULL,
        duration_ms integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX tool_calls_message_id_idx ON tool_calls (message_id, step)`);
    // The sweep of forgotten replies: live replies by status and age.
    await queryRunner.query(
      `CREATE INDEX messages_live_status_idx ON messages (status, updated_at) WHERE live`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX messages_live_status_idx`);
    await queryRunner.query(`DROP TABLE tool_calls`);
    await queryRunner.query(`DROP TABLE run_steps`);
  }
}
