import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The second wall between organizations (CONTRACTS §21): row-level security. A transaction that works for one
 * organization takes the role `parley_tenant` and names the organization in the setting `parley.org_id`, both
 * local to the transaction (so it holds through PgBouncer in transaction mode); every table that holds an
 * organization's data then shows and accepts only that organization's rows, whatever a query's own WHERE says,
 * and nothing at all when the setting is missing. Work that crosses organizations by design (the worker's runs
 * and sweeps, the admin CLI, migrations) runs as the table owner, which these policies do not restrict.
 *
 * This migration is a frozen snapshot: the tables are named here as they are today. A later table that holds an
 * organization's data gets its policy in its own migration (the schema spec lists every table without one).
 */

/** Tables with their own `org_id`. */
const BY_ORG = [
  'agents',
  'ai_sdk_chats',
  'api_keys',
  'audit_events',
  'connections',
  'conversation_files',
  'documents',
  'end_user_memory_namespaces',
  'erasures',
  'idempotency_keys',
  'memory_files',
  'message_feedback',
  'messages',
  'query_templates',
  'retention_settings',
  'routines',
  'skill_settings',
  'sources',
  'threads',
  'token_usage_pending',
  'usage_daily',
  'user_budgets',
  'webhooks',
];

/** Tables whose rows belong to a parent row's organization: visible exactly when the parent row is. */
const BY_PARENT: { table: string; column: string; parent: string }[] = [
  { table: 'run_steps', column: 'message_id', parent: 'messages' },
  { table: 'run_stream_journal', column: 'message_id', parent: 'messages' },
  { table: 'tool_approvals', column: 'message_id', parent: 'messages' },
  { table: 'tool_calls', column: 'message_id', parent: 'messages' },
  { table: 'thread_summaries', column: 'thread_id', parent: 'threads' },
  { table: 'share_links', column: 'file_id', parent: 'conversation_files' },
  { table: 'passages', column: 'document_id', parent: 'documents' },
  { table: 'webhook_deliveries', column: 'webhook_id', parent: 'webhooks' },
  { table: 'webhook_attempts', column: 'webhook_id', parent: 'webhooks' },
];

/** The organization a tenant transaction named; NULL (no row matches) when it named none. */
const SCOPE_ORG = `NULLIF(current_setting('parley.org_id', true), '')::uuid`;

export class RowLevelSecurity1766709000000 implements MigrationInterface {
  name = 'RowLevelSecurity1766709000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // A role is the cluster's, not the database's: several databases (tests, deployments) share it.
    await queryRunner.query(`
      DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'parley_tenant') THEN
          CREATE ROLE parley_tenant NOLOGIN NOINHERIT;
        END IF;
      END $$`);
    // The connecting role may take the tenant role (a superuser may anyway; granting to oneself is refused).
    await queryRunner.query(`
      DO $$ BEGIN
        IF NOT pg_has_role(current_user, 'parley_tenant', 'MEMBER') THEN
          EXECUTE format('GRANT parley_tenant TO %I', current_user);
        END IF;
      END $$`);
    await queryRunner.query(`GRANT USAGE ON SCHEMA public TO parley_tenant`);
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO parley_tenant`,
    );
    await queryRunner.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO parley_tenant`);
    // The deployment's own secrets are nobody's tenant data, and no tenant transaction reads them.
    await queryRunner.query(`REVOKE ALL ON deployment_secrets, schema_migrations FROM parley_tenant`);
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO parley_tenant`,
    );

    for (const table of BY_ORG) {
      await queryRunner.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await queryRunner.query(
        `CREATE POLICY tenant_scope ON ${table} TO parley_tenant USING (org_id = ${SCOPE_ORG})`,
      );
    }
    await queryRunner.query(`ALTER TABLE organizations ENABLE ROW LEVEL SECURITY`);
    await queryRunner.query(
      `CREATE POLICY tenant_scope ON organizations TO parley_tenant USING (id = ${SCOPE_ORG})`,
    );
    // Platform skills (no organization) are every organization's to read, no organization's to change.
    await queryRunner.query(`ALTER TABLE skills ENABLE ROW LEVEL SECURITY`);
    await queryRunner.query(`
      CREATE POLICY tenant_scope ON skills TO parley_tenant
        USING (org_id IS NULL OR org_id = ${SCOPE_ORG}) WITH CHECK (org_id = ${SCOPE_ORG})`);
    for (const { table, column, parent } of BY_PARENT) {
      await queryRunner.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      // The parent's own policy applies inside this subquery: the child is visible when its parent is.
      await queryRunner.query(`
        CREATE POLICY tenant_scope ON ${table} TO parley_tenant
          USING (EXISTS (SELECT 1 FROM ${parent} p WHERE p.id = ${table}.${column}))`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [...BY_ORG, 'organizations', 'skills', ...BY_PARENT.map((item) => item.table)]) {
      await queryRunner.query(`DROP POLICY tenant_scope ON ${table}`);
      await queryRunner.query(`ALTER TABLE ${table} DISABLE ROW LEVEL SECURITY`);
    }
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM parley_tenant`,
    );
    await queryRunner.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM parley_tenant`);
    await queryRunner.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM parley_tenant`);
    await queryRunner.query(`REVOKE USAGE ON SCHEMA public FROM parley_tenant`);
  }
}
