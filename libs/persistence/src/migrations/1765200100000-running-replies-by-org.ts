import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The live replies of an organization by status: what the per-organization cap on running agent runs counts
 * at each start, and where the next waiting reply of the organization is found when a run ends.
 */
export class RunningRepliesByOrg1765200100000 implements MigrationInterface {
  name = 'RunningRepliesByOrg1765200100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX messages_org_live_idx ON messages (org_id, status, created_at) WHERE live`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX messages_org_live_idx`);
  }
}
