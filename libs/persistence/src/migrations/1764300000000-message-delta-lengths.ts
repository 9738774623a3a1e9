import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The length of each text delta a reply streamed, in order. With it a replay from PostgreSQL (once the Redis
 * log has expired) cuts the content exactly as it was streamed, whatever model wrote it.
 */
export class MessageDeltaLengths1764300000000 implements MigrationInterface {
  name = 'MessageDeltaLengths1764300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages ADD COLUMN delta_lengths integer[]`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN delta_lengths`);
  }
}
