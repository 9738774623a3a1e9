import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens of ended replies not yet added to their agent's and organization's counters. A reply's end used to add
 * them itself, which made every reply of one agent wait for the previous one's commit on the agent's row (30 ms
 * per finish at 35 finishes a second of one agent); now it inserts a row here, and a worker folds the rows into
 * the counters about once a second. Budgets read counter + rows, so they stay exact.
 */
export class TokenUsagePending1766100200000 implements MigrationInterface {
  name = 'TokenUsagePending1766100200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE token_usage_pending (
        message_id uuid PRIMARY KEY,
        agent_id uuid NOT NULL,
        org_id uuid NOT NULL,
        tokens integer NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX token_usage_pending_agent_idx ON token_usage_pending (agent_id)`);
    await queryRunner.query(`CREATE INDEX token_usage_pending_org_idx ON token_usage_pending (org_id)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // What was not folded yet is added to the counters before the table goes.
    await queryRunner.query(`
      UPDATE agents a SET tokens_used = a.tokens_used + s.n
      FROM (SELECT agent_id, sum(tokens) AS n FROM token_usage_pending GROUP BY agent_id) s WHERE a.id = s.agent_id`);
    await queryRunner.query(`
      UPDATE organizations o SET tokens_used = o.tokens_used + s.n
      FROM (SELECT org_id, sum(tokens) AS n FROM token_usage_pending GROUP BY org_id) s WHERE o.id = s.org_id`);
    await queryRunner.query(`DROP TABLE token_usage_pending`);
  }
}
