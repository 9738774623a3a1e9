import { DataSource } from 'typeorm';
import { MIGRATIONS, runMigrations } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * The CI check that entities and migrations agree: on a database built by every migration, TypeORM finds
 * nothing an entity declares that is missing or different (no table, column, type or default to create or
 * alter), and the baseline refuses to be undone, leaving the schema as it was.
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

  it('undoes the migrations after the baseline, then refuses to undo the baseline and keeps the schema', async () => {
    const tables = async (): Promise<number> =>
      Number(
        (
          await db.query(
            `SELECT count(*) AS count FROM information_schema.tables WHERE table_schema = 'public'`,
          )
        )[0].count,
      );
    const before = await tables();
    for (let later = MIGRATIONS.length - 1; later > 0; later--)
      await db.undoLastMigration({ transaction: 'each' });
    expect(await appliedMigrations()).toBe(1);
    await expect(db.undoLastMigration({ transaction: 'each' })).rejects.toThrow(
      'the baseline migration cannot be undone',
    );
    expect(await appliedMigrations()).toBe(1);
    expect(await tables()).toBe(before);
    expect(await pendingSchemaChanges()).toEqual([]);
    await runMigrations(db);
    expect(await appliedMigrations()).toBe(MIGRATIONS.length);
  });
});
