import { BadRequestError } from '@app/contracts';
import { Caller } from '@app/identity';

/** What the memory use cases need of a caller: its organization (a request's Caller, or an agent run's scope). */
export type MemoryCaller = Pick<Caller, 'orgId'>;

/** Every memory call names its namespace; none is a 400, not a 422 (spec 4.5, §5.5). */
export function requireNamespace(namespace: string | null | undefined): string {
  if (!namespace) throw new BadRequestError('Missing namespace');
  return namespace;
}
