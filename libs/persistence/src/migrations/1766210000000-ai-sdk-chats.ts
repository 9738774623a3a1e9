import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The AI SDK's chat ids (CONTRACTS §17): a front end names its chats itself, and each id, per end user, is
 * bound to the Parley thread its first message started. Another user's id is another row, never theirs.
 */
export class AiSdkChats1766210000000 implements MigrationInterface {
  name = 'AiSdkChats1766210000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ai_sdk_chats (
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id text NOT NULL,
        chat_id text NOT NULL,
        thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, user_id, chat_id)
      )`);
    await queryRunner.query(`CREATE INDEX ai_sdk_chats_thread_idx ON ai_sdk_chats (thread_id)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ai_sdk_chats`);
  }
}
