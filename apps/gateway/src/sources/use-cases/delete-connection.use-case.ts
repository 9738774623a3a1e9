import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionRepository } from '@app/persistence';
import { CONNECTION_NOT_FOUND } from './source-rules';

/** DELETE /dc/connections/{id}: 409 while a source that is not archived uses it. */
@Injectable()
export class DeleteConnection {
  constructor(private readonly connections: ConnectionRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<void> {
    const outcome = await this.connections.deleteUnused({ orgId: caller.orgId, userId }, id);
    if (outcome === 'missing') throw new NotFoundError(CONNECTION_NOT_FOUND);
    if (outcome === 'in_use')
      throw new ConflictError('Connection is used by a source; archive its sources first');
  }
}
