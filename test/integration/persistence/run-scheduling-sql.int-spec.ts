import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions } from '@app/persistence';
import { RUN_SCHEDULING_FUNCTIONS } from '../../../libs/persistence/src/sql/run-scheduling.sql';
import { createTestEnvironment, TestEnvironment } from '../../support/test-environment';

/**
 * The rule that decides when a reply runs has one text of record (libs/persistence/src/sql/run-scheduling.sql.ts):
 * what PostgreSQL holds after every migration must be that text, so a change to the file without a migration
 * (or a migration that writes another text) fails here.
 */
describe('run scheduling functions', () => {
  let environment: TestEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    db = await new DataSource(
      dataSourceOptions(loadSettings({ DATABASE_URL: environment.databaseUrl }), 1),
    ).initialize();
  });

  afterAll(async () => {
    await db?.destroy();
    await environment?.dispose();
  });

  /** A function's body as PostgreSQL keeps it (between the dollar quotes), by name. */
  async function storedBody(name: string): Promise<string> {
    const rows: { src: string }[] = await db.query(`SELECT prosrc AS src FROM pg_proc WHERE proname = $1`, [
      name,
    ]);
    expect(rows).toHaveLength(1);
    return rows[0].src;
  }

  it.each(RUN_SCHEDULING_FUNCTIONS.map((fn) => [fn.name, fn.definition]))(
    '%s is the text of record',
    async (name, definition) => {
      const body = definition.slice(definition.indexOf('$$') + 2, definition.lastIndexOf('$$'));
      expect(await storedBody(name)).toBe(body);
    },
  );
});
