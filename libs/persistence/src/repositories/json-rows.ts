import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

const TIMESTAMP_TYPES = new Set(['timestamptz', 'timestamp', 'date']);

/**
 * An entity from its row as PostgreSQL's `to_jsonb` gives it: keys are column names, timestamps are text,
 * every other column is already its JavaScript value (bigints are counts that fit a double). Lets one statement
 * bring back rows of several tables, where TypeORM would make a round trip for each.
 */
export function entityFromJson<T extends ObjectLiteral>(
  db: DataSource,
  target: EntityTarget<T>,
  json: Record<string, unknown>,
): T {
  const metadata = db.getMetadata(target);
  const entity = metadata.create() as T;
  for (const column of metadata.columns) {
    const value = json[column.databaseName] ?? null;
    (entity as Record<string, unknown>)[column.propertyName] =
      value !== null && TIMESTAMP_TYPES.has(String(column.type)) ? new Date(value as string) : value;
  }
  return entity;
}
