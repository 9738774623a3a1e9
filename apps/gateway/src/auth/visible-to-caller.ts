import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { Scope } from '@app/persistence';

/** A repository that finds a row of a scope: the organization's, narrowed to one end user when one is named. */
interface ScopedLookup<T> {
  findVisible(scope: Scope, id: string): Promise<T | null>;
}

/**
 * The row `id` as the caller sees it, for the end user `userId` when named; else 404 with `notFound`: another
 * organization's or end user's row is not told apart from none.
 */
export async function visibleToCaller<T>(
  rows: ScopedLookup<T>,
  caller: Caller,
  userId: string | undefined,
  id: string,
  notFound: string,
): Promise<T> {
  const row = await rows.findVisible({ orgId: caller.orgId, userId }, id);
  if (!row) throw new NotFoundError(notFound);
  return row;
}
