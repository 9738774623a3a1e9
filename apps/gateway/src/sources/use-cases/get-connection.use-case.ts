import { Injectable } from '@nestjs/common';
import { ConnectionResponse, toConnectionResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionRepository } from '@app/persistence';
import { visibleToCaller } from '../../auth/visible-to-caller';
import { CONNECTION_NOT_FOUND } from './source-rules';

@Injectable()
export class GetConnection {
  constructor(private readonly connections: ConnectionRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<ConnectionResponse> {
    return toConnectionResponse(
      await visibleToCaller(this.connections, caller, userId, id, CONNECTION_NOT_FOUND),
    );
  }
}
