import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions, declaredStatements, MessageRepository } from '@app/persistence';
import { RUN_SCHEDULING_FUNCTIONS } from '../../../libs/persistence/src/sql/run-scheduling.sql';

/**
 * The text of every prepared statement and database function, checked in beside this spec
 * (`__snapshots__/prepared-statements.int-spec.ts.snap`), so that a query change shows in review as a diff of
 * SQL. A statement changed without the snapshot fails here; after a change made on purpose, `npx jest
 * test/integration/persistence/prepared-statements.int-spec.ts -u` writes it again (CI never writes it).
 */
describe('prepared statements', () => {
  let db: DataSource;

  beforeAll(async () => {
    // A connection for the entities' metadata, which some statements are built from; no table is read.
    const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    db = await new DataSource(dataSourceOptions(loadSettings({ DATABASE_URL: url }), 1)).initialize();
    new MessageRepository(db); // builds chat_start_thread from the entities' columns
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('have the texts of the snapshot, every one of them', () => {
    const statements = [...declaredStatements()].sort(([a], [b]) => a.localeCompare(b));
    expect(statements.length).toBeGreaterThanOrEqual(13);
    expect(Object.fromEntries(statements)).toMatchSnapshot();
  });

  it('and so have the database functions', () => {
    expect(
      Object.fromEntries(RUN_SCHEDULING_FUNCTIONS.map((fn) => [fn.name, fn.definition])),
    ).toMatchSnapshot();
  });
});
