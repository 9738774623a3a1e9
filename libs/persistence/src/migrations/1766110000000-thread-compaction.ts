import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Long threads (CONTRACTS §19): an agent's compaction setting, the summaries runs write of a thread's older
 * messages (nothing is deleted: a run reads the latest summary and the messages after it), and a thread's
 * request for a summary at its next run (POST /chat/{id}/compact).
 */
export class ThreadCompaction1766110000000 implements MigrationInterface {
  name = 'ThreadCompaction1766110000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE agents ADD COLUMN compaction jsonb`);
    await queryRunner.query(`ALTER TABLE threads ADD COLUMN compaction_requested_at timestamptz`);
    await queryRunner.query(`
      CREATE TABLE thread_summaries (
        id uuid PRIMARY KEY,
        thread_id uuid NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
        message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        through_position integer NOT NULL,
        summarized_messages integer NOT NULL,
        summary text NOT NULL,
        summary_tokens integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX thread_summaries_thread_idx ON thread_summaries (thread_id, through_position DESC)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE thread_summaries`);
    await queryRunner.query(`ALTER TABLE threads DROP COLUMN compaction_requested_at`);
    await queryRunner.query(`ALTER TABLE agents DROP COLUMN compaction`);
  }
}
