import { Injectable } from '@nestjs/common';
import { ConnectionResponse, NotFoundError, toConnectionResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionRepository } from '@app/persistence';

@Injectable()
export class GetConnection {
  constructor(private readonly connections: ConnectionRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<ConnectionResponse> {
    const connection = await this.connections.findVisible({ orgId: caller.orgId, userId }, id);
    if (!connection) throw new NotFoundError('Connection not found');
    return toConnectionResponse(connection);
  }
}
