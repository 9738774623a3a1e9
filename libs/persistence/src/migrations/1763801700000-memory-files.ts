import { MigrationInterface, QueryRunner } from 'typeorm';

/** Long-term memory files, keyed by (organization, namespace, path). */
export class MemoryFiles1763801700000 implements MigrationInterface {
  name = 'MemoryFiles1763801700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE memory_files (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        namespace varchar(128) NOT NULL,
        path text NOT NULL,
        purpose text NOT NULL,
        content text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version text NOT NULL,
        CONSTRAINT memory_files_org_namespace_path_key UNIQUE (org_id, namespace, path)
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE memory_files`);
  }
}
