import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An agent's description (issue 46): what an operator writes for the agent's callers, shown as its MCP tool's
 * description in place of the start of its instructions, which a caller (an end-user token in a browser) must
 * never read. Existing agents get an empty one.
 */
export class AgentDescription1766704000000 implements MigrationInterface {
  name = 'AgentDescription1766704000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE agents ADD COLUMN description text NOT NULL DEFAULT ''`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE agents DROP COLUMN description`);
  }
}
