import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `metadata` a Responses API request attaches to its reply (CONTRACTS §18): kept on the reply, so the Response
 * shows it when retrieved or streamed again, at any time. Null on every other message.
 */
export class ReplyMetadata1766300000000 implements MigrationInterface {
  name = 'ReplyMetadata1766300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages ADD COLUMN metadata jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN metadata`);
  }
}
