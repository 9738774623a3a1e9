import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Erasure and idempotency find an end user's rows by a column, never by searching text (CONTRACTS §20, §21).
 *
 * `idempotency_keys`: `user_id` is the end user the request acted as ('' for a service key's request that names
 * none) and is part of the key, so one end user never gets another's recorded answer; `thread_id` is the thread
 * the answer belongs to (a thread's erasure takes its records with it). Records written before this migration were
 * the organization's, keyed on the key alone: they are dropped (a retry within the next day runs afresh, which a
 * request without a key does anyway), rather than left naming end users no erasure could find.
 *
 * `webhook_deliveries`: the thread and the end users a payload names are derived from it by PostgreSQL itself
 * (a trigger on every insert), so no writer of the outbox (there are several) can forget them; indexed, so an
 * erasure's statement costs what it deletes, not the organization's whole webhook history. Settled deliveries are purged by age (worker).
 */
export class ErasureByColumn1766702000000 implements MigrationInterface {
  name = 'ErasureByColumn1766702000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM idempotency_keys`);
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN user_id text NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE idempotency_keys ADD COLUMN thread_id uuid REFERENCES threads (id) ON DELETE CASCADE`,
    );
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`);
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD PRIMARY KEY (org_id, user_id, key)`);
    await queryRunner.query(
      `CREATE INDEX idempotency_keys_thread_idx ON idempotency_keys (thread_id) WHERE thread_id IS NOT NULL`,
    );

    await queryRunner.query(
      `ALTER TABLE webhook_deliveries ADD COLUMN thread_id text, ADD COLUMN end_user_ids text[]`,
    );
    await queryRunner.query(`
      CREATE FUNCTION parley_webhook_delivery_subjects() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.thread_id := NEW.payload #>> '{data,thread_id}';
        NEW.end_user_ids := array_remove(ARRAY[
          NEW.payload #>> '{data,user_id}',
          NEW.payload #>> '{data,created_by}',
          NEW.payload #>> '{data,connection,created_by}'], NULL);
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER webhook_delivery_subjects BEFORE INSERT OR UPDATE OF payload ON webhook_deliveries
        FOR EACH ROW EXECUTE FUNCTION parley_webhook_delivery_subjects()`);
    // Rows written before: the trigger fills them too.
    await queryRunner.query(`UPDATE webhook_deliveries SET payload = payload`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_thread_idx ON webhook_deliveries (thread_id) WHERE thread_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_end_users_idx ON webhook_deliveries USING gin (end_user_ids)`,
    );
    // The purge of settled deliveries walks them oldest first.
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_settled_idx ON webhook_deliveries (created_at) WHERE next_attempt_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook_deliveries_settled_idx`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_end_users_idx`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_thread_idx`);
    await queryRunner.query(`DROP TRIGGER webhook_delivery_subjects ON webhook_deliveries`);
    await queryRunner.query(`DROP FUNCTION parley_webhook_delivery_subjects()`);
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN end_user_ids, DROP COLUMN thread_id`);
    await queryRunner.query(`DELETE FROM idempotency_keys`);
    await queryRunner.query(`DROP INDEX idempotency_keys_thread_idx`);
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`);
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN thread_id, DROP COLUMN user_id`);
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD PRIMARY KEY (org_id, key)`);
  }
}
