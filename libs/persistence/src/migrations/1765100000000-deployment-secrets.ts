import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secrets a deployment generates for itself on first start when its configuration sets none
 * (STORAGE_SIGNING_SECRET, CREDENTIALS_KEYS): one row each, written once, read by every replica.
 */
export class DeploymentSecrets1765100000000 implements MigrationInterface {
  name = 'DeploymentSecrets1765100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE deployment_secrets (
        name text PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE deployment_secrets`);
  }
}
