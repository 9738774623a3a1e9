/** The text form of a PostgreSQL uuid, any version. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an id can name a row at all (every id column is uuid): anything else is simply not found, and is never
 * sent to PostgreSQL, whose own error would be a 500. The one check; a request DTO's `@IsUUID` is the 422 of
 * a malformed path or query instead.
 */
export const isRowId = (id: string): boolean => UUID.test(id);
