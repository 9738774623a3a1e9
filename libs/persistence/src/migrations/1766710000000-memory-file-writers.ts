import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A memory file remembers every end user whose run wrote it, not only the last (CONTRACTS §21): a file alice's run
 * wrote and bob's run then edited may still hold what alice wrote, so erasing alice must find it.
 * `written_by_user_ids` replaces `written_by_user_id`, whose value it starts from.
 */
export class MemoryFileWriters1766710000000 implements MigrationInterface {
  name = 'MemoryFileWriters1766710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE memory_files ADD COLUMN written_by_user_ids text[] NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `UPDATE memory_files SET written_by_user_ids = ARRAY[written_by_user_id] WHERE written_by_user_id IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX memory_files_writer_idx`);
    await queryRunner.query(`ALTER TABLE memory_files DROP COLUMN written_by_user_id`);
    await queryRunner.query(
      `CREATE INDEX memory_files_writers_idx ON memory_files USING gin (written_by_user_ids)
       WHERE written_by_user_ids <> '{}'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX memory_files_writers_idx`);
    await queryRunner.query(`ALTER TABLE memory_files ADD COLUMN written_by_user_id text`);
    await queryRunner.query(
      `UPDATE memory_files SET written_by_user_id = written_by_user_ids[cardinality(written_by_user_ids)]`,
    );
    await queryRunner.query(`ALTER TABLE memory_files DROP COLUMN written_by_user_ids`);
    await queryRunner.query(
      `CREATE INDEX memory_files_writer_idx ON memory_files (org_id, written_by_user_id)
       WHERE written_by_user_id IS NOT NULL`,
    );
  }
}
