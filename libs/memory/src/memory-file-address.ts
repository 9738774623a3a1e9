import { NotFoundError } from '@app/contracts';
import { MemoryFileKey } from '@app/persistence';
import { requireNamespace } from './memory-caller';

/** One memory file as a call names it: its namespace (required, though the input may lack it) and path. */
export interface MemoryFileAddress {
  namespace?: string | null;
  path: string;
}

/** The stored file's key; a call without a namespace is refused first (requireNamespace). */
export const memoryFileKey = (address: MemoryFileAddress): MemoryFileKey => ({
  namespace: requireNamespace(address.namespace),
  path: address.path,
});

/** The 404 of a file that the namespace does not hold. */
export const memoryFileNotFound = (): NotFoundError => new NotFoundError('Memory file not found');
