import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import {
  MIGRATIONS,
  partialChainMessage,
  PRE_BASELINE_MIGRATIONS,
  RELEASE_BEFORE_BASELINE,
  runMigrations,
} from '@app/persistence';
import { appScript } from '../../support/test-environment';
import { useTestDatabase } from '../../support/test-database';

const run = promisify(execFile);
const BASELINE = MIGRATIONS[0].name;
const EVERY_MIGRATION = MIGRATIONS.map((migration) => migration.name);

/**
 * The upgrade across the squash: a database that ran the 46 migrations the baseline replaced holds its schema
 * already and records the baseline without running any of it; one that stopped part way through them is refused
 * with what to do, and nothing changes. Simulated on a database the baseline built, whose migrations table is
 * made to look like the old chain's.
 */
describe('the baseline on a database of the old chain', () => {
  const database = useTestDatabase();
  let db: DataSource;

  beforeAll(async () => {
    db = database.db;
    // Any DDL until the baseline is recorded fails the statement: the proof that the baseline runs none (the
    // migrations after it are DDL of their own, and run as on any database).
    await db.query(`CREATE FUNCTION refuse_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM schema_migrations WHERE name = '${BASELINE}') THEN
          RAISE EXCEPTION 'DDL ran: %', tg_tag;
        END IF;
      END $$`);
    await db.query(`CREATE EVENT TRIGGER refuse_ddl ON ddl_command_start EXECUTE FUNCTION refuse_ddl()`);
    await db.query(`DELETE FROM schema_migrations`); // each test records the migrations it simulates
    await expect(db.query(`CREATE TABLE refused (id int)`)).rejects.toThrow('DDL ran: CREATE TABLE');
  });

  /** The migrations table holding these names only, with the timestamps the old chain recorded. */
  async function record(names: readonly string[]): Promise<void> {
    await db.query(`DELETE FROM schema_migrations`);
    for (const name of names) {
      await db.query(`INSERT INTO schema_migrations (timestamp, name) VALUES ($1, $2)`, [
        Number(name.slice(-13)),
        name,
      ]);
    }
  }

  const recorded = async (): Promise<string[]> =>
    (await db.query(`SELECT name FROM schema_migrations ORDER BY id`)).map(
      (row: { name: string }) => row.name,
    );

  it('runs no DDL on a database that ran the whole old chain, and records the baseline as run', async () => {
    await record(PRE_BASELINE_MIGRATIONS);
    expect(await runMigrations(db)).toEqual(EVERY_MIGRATION);
    expect(await recorded()).toEqual([...PRE_BASELINE_MIGRATIONS, ...EVERY_MIGRATION]);
    expect(await runMigrations(db)).toEqual([]);
  });

  it('refuses a database that stopped part way through the old chain, naming the release to migrate with first, and changes nothing', async () => {
    const some = PRE_BASELINE_MIGRATIONS.slice(0, 30);
    await record(some);
    await expect(runMigrations(db)).rejects.toThrow(partialChainMessage(some.length));
    expect(partialChainMessage(some.length)).toContain(RELEASE_BEFORE_BASELINE);
    expect(await recorded()).toEqual(some);

    // The operator's path: `npm run migrate` exits 1 and says the same.
    const failed = await run(process.execPath, [appScript('admin', 'migrate.js')], {
      env: database.environment.env,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(partialChainMessage(some.length)),
    });
    expect(await recorded()).toEqual(some);
  });
});
