import { Client } from 'pg';

/** The column types a value of an end user can hide in as text. */
const SEARCHED_TYPES = ['text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY'];

/**
 * Every `table.column` of the database whose value contains `needle` anywhere, walking information_schema:
 * every text, varchar, char, json, jsonb and array column of every table of the public schema. The proof that an
 * erasure left an id nowhere, whatever table a later change adds.
 */
export async function columnsContaining(databaseUrl: string, needle: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const columns = (
      await client.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
         WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type = ANY ($1)
         ORDER BY 1, 2`,
        [SEARCHED_TYPES],
      )
    ).rows;
    const found: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const { rows } = await client.query(
        `SELECT 1 FROM "${table}" WHERE strpos("${column}"::text, $1) > 0 LIMIT 1`,
        [needle],
      );
      if (rows.length > 0) found.push(`${table}.${column}`);
    }
    return found;
  } finally {
    await client.end();
  }
}
