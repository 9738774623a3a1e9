import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Memory at the end-user boundary (CONTRACTS §21). `end_user_memory_namespaces` records, when a token is minted,
 * which namespaces it granted to which end user: erasure and export find "every file of a namespace named in the
 * user's tokens" there (tokens themselves are stateless and never stored). `memory_files.written_by_user_id` is
 * the end user whose run last wrote the file (null: written through the HTTP routes, with a key), so erasure and
 * export find the files a user's runs wrote by a column, not by searching text.
 */
export class EndUserMemory1766700000000 implements MigrationInterface {
  name = 'EndUserMemory1766700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE end_user_memory_namespaces (
        org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id text NOT NULL,
        namespace varchar(128) NOT NULL,
        PRIMARY KEY (org_id, user_id, namespace)
      )`);
    await queryRunner.query(`ALTER TABLE memory_files ADD COLUMN written_by_user_id text`);
    await queryRunner.query(
      `CREATE INDEX memory_files_writer_idx ON memory_files (org_id, written_by_user_id)
       WHERE written_by_user_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX memory_files_writer_idx`);
    await queryRunner.query(`ALTER TABLE memory_files DROP COLUMN written_by_user_id`);
    await queryRunner.query(`DROP TABLE end_user_memory_namespaces`);
  }
}
