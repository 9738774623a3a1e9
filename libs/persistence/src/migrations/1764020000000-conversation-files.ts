import { MigrationInterface, QueryRunner } from 'typeorm';

/** Files of conversations (two-step upload, agent output) and their share links. */
export class ConversationFiles1764020000000 implements MigrationInterface {
  name = 'ConversationFiles1764020000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE conversation_files (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id text,
        name text NOT NULL,
        mimetype text NOT NULL,
        size bigint NOT NULL DEFAULT 0,
        storage_key text NOT NULL UNIQUE,
        origin text NOT NULL CHECK (origin IN ('user', 'agent')),
        status text NOT NULL CHECK (status IN ('pending', 'uploaded')),
        message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        uploaded_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX conversation_files_message_idx ON conversation_files (message_id) WHERE message_id IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE share_links (
        id uuid PRIMARY KEY,
        file_id uuid NOT NULL REFERENCES conversation_files(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        password_hash text,
        revoked_at timestamptz,
        access_count bigint NOT NULL DEFAULT 0,
        last_accessed_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX share_links_file_idx ON share_links (file_id, created_at)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE share_links`);
    await queryRunner.query(`DROP TABLE conversation_files`);
  }
}
