import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/*
 * Rows for hand-written statements, shaped by TypeORM's own entity metadata: the statements that must do in one
 * round trip what TypeORM would do in several (write rows of several tables, read them back together) still
 * list every column of the entity and convert values as TypeORM does.
 */

const TIMESTAMP_TYPES = new Set(['timestamptz', 'timestamp', 'date']);

/** An entity's columns in one order, and an entity's values for them as TypeORM would send them. */
export interface EntityRow<T> {
  columns: string[];
  values(entity: T): unknown[];
}

export function entityRow<T extends ObjectLiteral>(db: DataSource, target: EntityTarget<T>): EntityRow<T> {
  const columns = db.getMetadata(target).columns;
  return {
    columns: columns.map((column) => column.databaseName),
    values: (entity) =>
      columns.map((column) =>
        db.driver.preparePersistentValue(column.getEntityValue(entity) ?? null, column),
      ),
  };
}

/**
 * An entity from its row as PostgreSQL's `to_jsonb` gives it: keys are column names, timestamps are text,
 * every other column is already its JavaScript value (bigints are counts that fit a double).
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
