import { Injectable } from '@nestjs/common';
import { ConnectionResponse, toConnectionResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionTokens } from '@app/knowledge';
import { ConnectionRepository } from '@app/persistence';
import { visibleToCaller } from '../../auth/visible-to-caller';
import { CONNECTION_NOT_FOUND } from './source-rules';

/** POST /dc/connections/{id}/check: refreshes or tests the credentials; a refusal makes it inoperative. */
@Injectable()
export class CheckConnection {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly tokens: ConnectionTokens,
  ) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<ConnectionResponse> {
    const scope = { orgId: caller.orgId, userId };
    const connection = await visibleToCaller(this.connections, caller, userId, id, CONNECTION_NOT_FOUND);
    return toConnectionResponse(await this.tokens.check(scope, connection));
  }
}
