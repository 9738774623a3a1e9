import { MigrationInterface, QueryRunner } from 'typeorm';

const SCOPE_ORG = `NULLIF(current_setting('parley.org_id', true), '')::uuid`;

/**
 * Evaluations (CONTRACTS §23): datasets of inputs with what is expected of their answers, and runs that answer
 * every item with one agent version, each item as a reply in a thread of `inception: "eval"`. An item's reply is
 * stored in the same transaction that marks the item started, so an item is never run twice. Every table holds
 * its organization's id and row-level security like every other. An item copied from an end user's thread keeps
 * that user's hash (as the erasure receipt does, never the id), so erasing the user deletes the copies too.
 */
export class Evals1766740100000 implements MigrationInterface {
  name = 'Evals1766740100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE threads DROP CONSTRAINT threads_inception_check`);
    await queryRunner.query(
      `ALTER TABLE threads ADD CONSTRAINT threads_inception_check CHECK (inception IN ('conversational', 'routine', 'eval'))`,
    );
    await queryRunner.query(`
      CREATE TABLE eval_datasets (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX eval_datasets_org_idx ON eval_datasets (org_id, id DESC)`);
    await queryRunner.query(`
      CREATE TABLE eval_items (
        dataset_id uuid NOT NULL REFERENCES eval_datasets (id) ON DELETE CASCADE,
        position integer NOT NULL,
        org_id uuid NOT NULL,
        input jsonb NOT NULL,
        expected jsonb,
        reference text,
        source_user_hash text,
        PRIMARY KEY (dataset_id, position)
      )`);
    await queryRunner.query(`
      CREATE TABLE eval_runs (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL,
        dataset_id uuid NOT NULL,
        agent_id uuid NOT NULL,
        agent_version integer NOT NULL,
        judge_model text,
        status text NOT NULL DEFAULT 'running',
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX eval_runs_agent_idx ON eval_runs (org_id, agent_id, id DESC)`);
    await queryRunner.query(`CREATE INDEX eval_runs_running_idx ON eval_runs (id) WHERE status = 'running'`);
    // The items a run answers, copied from its dataset when it starts: deleting the dataset leaves the run whole.
    await queryRunner.query(`
      CREATE TABLE eval_run_items (
        run_id uuid NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
        position integer NOT NULL,
        org_id uuid NOT NULL,
        input jsonb NOT NULL,
        expected jsonb,
        reference text,
        source_user_hash text,
        thread_id uuid,
        reply_id uuid,
        output text,
        scores jsonb,
        passed boolean,
        input_tokens integer NOT NULL DEFAULT 0,
        output_tokens integer NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, position)
      )`);
    for (const table of ['eval_datasets', 'eval_items', 'eval_runs', 'eval_run_items']) {
      await queryRunner.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await queryRunner.query(
        `CREATE POLICY tenant_scope ON ${table} TO parley_tenant USING (org_id = ${SCOPE_ORG})`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE eval_run_items, eval_runs, eval_items, eval_datasets`);
    await queryRunner.query(`DELETE FROM threads WHERE inception = 'eval'`);
    await queryRunner.query(`ALTER TABLE threads DROP CONSTRAINT threads_inception_check`);
    await queryRunner.query(
      `ALTER TABLE threads ADD CONSTRAINT threads_inception_check CHECK (inception IN ('conversational', 'routine'))`,
    );
  }
}
