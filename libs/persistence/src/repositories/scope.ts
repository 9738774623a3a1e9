import { EntityManager } from 'typeorm';

/**
 * Whose data a query may touch: every repository method that reads tenant data takes one first.
 * `userId` narrows to one end user when the caller named one.
 */
export interface Scope {
  orgId: string;
  userId?: string | null;
}

/** One end user of one organization: what a query about that person (erasure, export, grants) is scoped to. */
export interface EndUserScope {
  orgId: string;
  userId: string;
}

/** A transaction's manager, or the data source's own when none is open. */
export type Db = EntityManager;
