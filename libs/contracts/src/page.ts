import { rowCursor } from './row-id';

/**
 * One page of a listing keyed by row ids, newest first (GET /chat, /feedback, /audit-events): the body's items
 * and the `before` of the next page, which the gateway sends as the `x-next-cursor` header.
 */
export interface Page<T> {
  items: T[];
  /** Absent when this page is not full, so nothing can follow it. */
  nextCursor?: string;
}

/**
 * The page made of `rows`, fetched with `limit`: a full page carries the cursor of its last row, since a next
 * page may exist; a shorter one is the end.
 */
export function pageOf<Row, Item>(
  rows: readonly Row[],
  limit: number,
  idOf: (row: Row) => string,
  toItem: (row: Row) => Item,
): Page<Item> {
  const items = rows.map(toItem);
  return rows.length === limit ? { items, nextCursor: rowCursor(idOf(rows[rows.length - 1])) } : { items };
}
