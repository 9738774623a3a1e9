import { InvalidInputError, NotFoundError, pydanticIssue, valueErrorIssue, isRowId } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionEntity, ConnectionRepository, SourceEntity, SourceRepository } from '@app/persistence';
import { Store } from '../dto/connection.dto';

export const CONNECTION_NOT_FOUND = 'Connection not found';

/**
 * The source `pid` in the caller's scope (`live`: not archived), or 404: another organization's or end user's is
 * not told apart from none.
 */
export async function visibleSource(
  sources: SourceRepository,
  caller: Caller,
  userId: string | undefined,
  pid: string,
  { live }: { live: boolean },
): Promise<SourceEntity> {
  const scope = { orgId: caller.orgId, userId };
  const source = live ? await sources.findLiveVisible(scope, pid) : await sources.findVisible(scope, pid);
  if (!source) throw new NotFoundError('Source not found');
  return source;
}

/**
 * A connection of the end user `userId` for `store`: 404 when there is none or it is another user's (a source
 * reads a store through its connection's token, so only the connection's owner builds sources on it), 422 for
 * another kind. An organization-scoped source on it is the owner's explicit choice (`scope` is required).
 */
export async function connectionFor(
  connections: ConnectionRepository,
  owner: { orgId: string; userId: string },
  id: string,
  store: Store,
): Promise<ConnectionEntity> {
  const connection = isRowId(id) ? await connections.findVisible(owner, id) : null;
  if (!connection) throw new NotFoundError(CONNECTION_NOT_FOUND);
  if (connection.kind !== store) {
    throw new InvalidInputError([
      valueErrorIssue(
        ['body', 'connection_id'],
        id,
        `the connection is for ${connection.kind}, not ${store}`,
      ),
    ]);
  }
  return connection;
}

/** Who moves a source to another connection: that connection's owner, so the end user must be named (422). */
export function connectionOwner(userId: string | undefined): string {
  if (!userId) {
    throw new InvalidInputError([pydanticIssue('missing', ['query', 'user_id'], null)]);
  }
  return userId;
}

export function defaultName(store: Store, config: Record<string, unknown>): string {
  if (store === 'googledrive') return `Google Drive folder ${String(config.folder_id)}`;
  if (store === 'sharepoint')
    return `SharePoint ${[config.site_id, config.folder_path].filter(Boolean).join(' ')}`;
  return 'Uploaded documents';
}
