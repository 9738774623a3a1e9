import { Injectable } from '@nestjs/common';
import { ConnectionResponse, toConnectionResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionRepository } from '@app/persistence';

/**
 * GET /dc/connections: newest first; with a `user_id` only that end user's own (a connection is its maker's),
 * without one every connection of the organization (the organization's backend acting as itself).
 */
@Injectable()
export class ListConnections {
  constructor(private readonly connections: ConnectionRepository) {}

  async execute(caller: Caller, userId: string | undefined): Promise<ConnectionResponse[]> {
    return (await this.connections.listVisible({ orgId: caller.orgId, userId })).map(toConnectionResponse);
  }
}
