import { Injectable } from '@nestjs/common';
import { ConnectionResponse, NotFoundError, toConnectionResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionTokens } from '@app/knowledge';
import { ConnectionRepository } from '@app/persistence';

/** POST /dc/connections/{id}/check: refreshes or tests the credentials; a refusal makes it inoperative. */
@Injectable()
export class CheckConnection {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly tokens: ConnectionTokens,
  ) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<ConnectionResponse> {
    const scope = { orgId: caller.orgId, userId };
    const connection = await this.connections.findVisible(scope, id);
    if (!connection) throw new NotFoundError('Connection not found');
    return toConnectionResponse(await this.tokens.check(scope, connection));
  }
}
