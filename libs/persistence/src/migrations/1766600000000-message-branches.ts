import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Regenerate and edit (CONTRACTS §19): a thread's messages form a tree. Each message names the one it follows
 * (`parent_id`: a reply its user message, a user message the leaf it was posted after), and the thread names
 * the leaf of the branch it shows (`active_leaf_id`). Positions stay one counter per thread, so the run order
 * (sql/run-scheduling.sql.ts) is unchanged. A summary names the last message it stands for, so a run reads it
 * only when that message is on the run's own branch. Existing threads are single chains: each message follows
 * the one before it, and the last one is the active leaf.
 */
export class MessageBranches1766600000000 implements MigrationInterface {
  name = 'MessageBranches1766600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages ADD COLUMN parent_id uuid`);
    await queryRunner.query(`ALTER TABLE threads ADD COLUMN active_leaf_id uuid`);
    await queryRunner.query(`ALTER TABLE thread_summaries ADD COLUMN through_message_id uuid`);
    await queryRunner.query(`
      UPDATE messages m SET parent_id = chain.previous
      FROM (SELECT id, lag(id) OVER (PARTITION BY thread_id ORDER BY position) AS previous FROM messages) chain
      WHERE chain.id = m.id AND chain.previous IS NOT NULL`);
    await queryRunner.query(`
      UPDATE threads t SET active_leaf_id = last.id
      FROM (SELECT DISTINCT ON (thread_id) thread_id, id FROM messages ORDER BY thread_id, position DESC) last
      WHERE last.thread_id = t.id`);
    await queryRunner.query(`
      UPDATE thread_summaries s SET through_message_id = m.id
      FROM messages m WHERE m.thread_id = s.thread_id AND m.position = s.through_position`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE thread_summaries DROP COLUMN through_message_id`);
    await queryRunner.query(`ALTER TABLE threads DROP COLUMN active_leaf_id`);
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN parent_id`);
  }
}
