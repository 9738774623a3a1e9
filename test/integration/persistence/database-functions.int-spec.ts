import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions } from '@app/persistence';
import { DATABASE_FUNCTIONS } from '../../../libs/persistence/src/sql/database-functions';
import { createTestEnvironment, TestEnvironment } from '../../support/test-environment';

/** A function's body (between the dollar quotes) with its white space folded, as PostgreSQL's and ours compare. */
const folded = (body: string): string => body.replace(/\s+/g, ' ').trim();
const bodyOf = (definition: string): string =>
  definition.slice(definition.indexOf('$$') + 2, definition.lastIndexOf('$$'));

/**
 * Every function of the schema has one text of record (libs/persistence/src/sql/database-functions.ts), and each
 * migration keeps its own copy of the text it ran. What PostgreSQL holds after the last migration must be the text
 * of record: an edit of the text without a migration, a migration that writes another text, or a function no text
 * of record names, fails here (as Immich's schema check does against its schema/functions.ts).
 */
describe('database functions', () => {
  let environment: TestEnvironment;
  let db: DataSource;
  let stored: Map<string, string>;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    db = await new DataSource(
      dataSourceOptions(loadSettings({ DATABASE_URL: environment.databaseUrl }), 1),
    ).initialize();
    // The schema's own functions: those an extension brought (pgvector's, …) are the extension's.
    const rows: { name: string; src: string }[] = await db.query(
      `SELECT p.proname AS name, p.prosrc AS src FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public'
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    );
    stored = new Map(rows.map((row) => [row.name, row.src]));
  });

  afterAll(async () => {
    await db?.destroy();
    await environment?.dispose();
  });

  it('holds exactly the functions the text of record names, once each', () => {
    const names = DATABASE_FUNCTIONS.map((fn) => fn.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...stored.keys()].sort()).toEqual([...names].sort());
  });

  it.each(DATABASE_FUNCTIONS.map((fn) => [fn.name, fn.definition]))(
    '%s is the text of record',
    (name, definition) => {
      expect(folded(stored.get(name) ?? '')).toBe(folded(bodyOf(definition)));
    },
  );
});
