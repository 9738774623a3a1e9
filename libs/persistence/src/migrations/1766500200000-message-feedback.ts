import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Feedback on replies (CONTRACTS §20): one row per reply, replaced by a later rating. It keeps the reply's
 * organization, thread, agent and end user, so GET /feedback filters without joining the messages.
 */
export class MessageFeedback1766500200000 implements MigrationInterface {
  name = 'MessageFeedback1766500200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE message_feedback (
        message_id uuid PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
        org_id uuid NOT NULL,
        thread_id uuid NOT NULL,
        agent_id uuid,
        user_id text,
        rating smallint NOT NULL CHECK (rating IN (1, -1)),
        comment text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX message_feedback_listing_idx ON message_feedback (org_id, message_id DESC)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE message_feedback`);
  }
}
