import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approvals (CONTRACTS §19): the tool permissions of an agent whose calls wait for a person, a reply's status
 * while it waits (`requires_action`: live, but no run holds a worker for it), and each waiting call with its
 * decision. The wait lives here, not in Redis or a worker: any worker resumes it once every call of the step is
 * decided, or its time is up.
 */
export class ToolApprovals1766400000000 implements MigrationInterface {
  name = 'ToolApprovals1766400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE agents ADD COLUMN approval_required jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`ALTER TABLE messages DROP CONSTRAINT messages_status_check`);
    await queryRunner.query(
      `ALTER TABLE messages ADD CONSTRAINT messages_status_check
         CHECK (status IN ('pending', 'running', 'requires_action', 'success', 'error', 'cancelled'))`,
    );
    await queryRunner.query(`
      CREATE TABLE tool_approvals (
        message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        step integer NOT NULL,
        call_id text NOT NULL,
        call_index integer NOT NULL,
        name text NOT NULL,
        arguments jsonb NOT NULL,
        decision text CHECK (decision IN ('approve', 'deny')),
        reason text,
        requested_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        PRIMARY KEY (message_id, step, call_id)
      )`);
    // The sweep looks for waits whose time is up.
    await queryRunner.query(
      `CREATE INDEX tool_approvals_undecided_idx ON tool_approvals (expires_at) WHERE decision IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE tool_approvals`);
    await queryRunner.query(`ALTER TABLE messages DROP CONSTRAINT messages_status_check`);
    await queryRunner.query(
      `ALTER TABLE messages ADD CONSTRAINT messages_status_check
         CHECK (status IN ('pending', 'running', 'success', 'error', 'cancelled'))`,
    );
    await queryRunner.query(`ALTER TABLE agents DROP COLUMN approval_required`);
  }
}
