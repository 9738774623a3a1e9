import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Erasure of an end user and retention of threads (CONTRACTS §20). `erasures` is the receipt: the end user is
 * named by a hash; `user_id` holds the id in clear only while the erasure runs (a resumed job reads it there, not
 * from Redis) and is cleared in the statement that marks it done; `requested_by` is the audit actor who asked. `retention_settings` keeps an organization's
 * `thread_days`.
 */
export class Erasures1766600100000 implements MigrationInterface {
  name = 'Erasures1766600100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE erasures (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_hash text NOT NULL,
        user_id text,
        status text NOT NULL CHECK (status IN ('running', 'done')),
        requested_by jsonb NOT NULL,
        counts jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CHECK ((status = 'running') = (user_id IS NOT NULL))
      )`);
    // One running erasure per end user: a second DELETE while it runs answers the same one.
    await queryRunner.query(
      `CREATE UNIQUE INDEX erasures_running_uq ON erasures (org_id, user_hash) WHERE status = 'running'`,
    );
    await queryRunner.query(`
      CREATE TABLE retention_settings (
        org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
        thread_days integer NOT NULL CHECK (thread_days > 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // An erasure finds an end user's threads and files, archived ones included (the listing index skips those);
    // retention finds an organization's threads by age.
    await queryRunner.query(`CREATE INDEX threads_owner_idx ON threads (org_id, user_id)`);
    await queryRunner.query(`CREATE INDEX threads_age_idx ON threads (org_id, created_at)`);
    await queryRunner.query(
      `CREATE INDEX conversation_files_owner_idx ON conversation_files (org_id, user_id)`,
    );
    // Deleting messages checks the rows that refer to them: without these, each deleted message scans the table.
    await queryRunner.query(
      `CREATE INDEX messages_reply_to_idx ON messages (reply_to_id) WHERE reply_to_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX thread_summaries_message_idx ON thread_summaries (message_id)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX thread_summaries_message_idx`);
    await queryRunner.query(`DROP INDEX messages_reply_to_idx`);
    await queryRunner.query(`DROP INDEX conversation_files_owner_idx`);
    await queryRunner.query(`DROP INDEX threads_age_idx`);
    await queryRunner.query(`DROP INDEX threads_owner_idx`);
    await queryRunner.query(`DROP TABLE retention_settings`);
    await queryRunner.query(`DROP TABLE erasures`);
  }
}
