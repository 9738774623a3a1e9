/** The text form of a PostgreSQL uuid, any version. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an id can name a row at all (every id column is uuid): anything else is simply not found, and is never
 * sent to PostgreSQL, whose own error would be a 500. The one check; a request DTO's `@IsUUID` is the 422 of
 * a malformed path or query instead.
 */
export const isRowId = (id: string): boolean => UUID.test(id);

/** The opaque cursor of a listing keyed by a row's uuid: its 16 bytes in base64url (22 characters). */
export const rowCursor = (id: string): string =>
  Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url');

/** The uuid a `rowCursor` holds. */
export const cursorRowId = (cursor: string): string =>
  Buffer.from(cursor, 'base64url')
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
