import { EntityManager } from 'typeorm';

/**
 * Whose data a query may touch: every repository method that reads tenant data takes one first.
 * `userId` narrows to one end user when the caller named one.
 */
export interface Scope {
  orgId: string;
  userId?: string | null;
}

/** A transaction's manager, or the data source's own when none is open. */
export type Db = EntityManager;
