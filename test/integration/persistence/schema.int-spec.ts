import { DataSource } from 'typeorm';
import { MIGRATIONS } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * The CI check that entities and migrations agree: on a database built by every migration, TypeORM finds
 * nothing an entity declares that is missing or different (no table, column, type or default to create or
 * alter), and every migration runs down and then up again.
 *
 * The migrations also hold foreign keys, CHECK and UNIQUE constraints and partial indexes that the entities do
 * not declare; TypeORM's diff proposes to drop them, so those drops (and only those) are allowed here.
 */
describe('schema: entities and migrations', () => {
  // The test environment runs every migration on a fresh database through the admin app's migrate.js.
  const database = useTestDatabase();
  let db: DataSource;

  beforeAll(() => {
    db = database.db;
  });

  /** The statements TypeORM would run to make the schema match the entities, minus drops of migration-only objects. */
  async function pendingSchemaChanges(): Promise<string[]> {
    const sql = await db.driver.createSchemaBuilder().log();
    return sql.upQueries
      .map((query) => query.query)
      .filter(
        (query) => !/^(ALTER TABLE "\w+" DROP CONSTRAINT "\w+"|DROP INDEX "public"\."\w+")$/.test(query),
      );
  }

  async function appliedMigrations(): Promise<number> {
    const rows: { count: string }[] = await db.query(`SELECT count(*) AS count FROM schema_migrations`);
    return Number(rows[0].count);
  }

  it('has every migration applied and nothing the entities declare missing or different', async () => {
    expect(await appliedMigrations()).toBe(MIGRATIONS.length);
    expect(await pendingSchemaChanges()).toEqual([]);
  });

  it('undoes every migration and redoes them to the same schema', async () => {
    for (let i = 0; i < MIGRATIONS.length; i++) await db.undoLastMigration({ transaction: 'each' });
    expect(await appliedMigrations()).toBe(0);
    const tables: { name: string }[] = await db.query(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`,
    );
    expect(tables).toEqual([]);

    const redone = await db.runMigrations({ transaction: 'each' });
    expect(redone.map((migration) => migration.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    expect(await pendingSchemaChanges()).toEqual([]);
  });
});
