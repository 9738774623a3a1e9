import { Injectable } from '@nestjs/common';
import {
  ConflictError,
  ConnectionResponse,
  InvalidInputError,
  NotFoundError,
  pydanticIssue,
  toConnectionResponse,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { ConnectionTokens, CredentialCipher } from '@app/knowledge';
import { ConnectionRepository } from '@app/persistence';
import { CreateConnectionDto } from '../dto/connection.dto';

/** POST /dc/connections: credentials encrypted at rest; the drive and site kinds need an access token. */
@Injectable()
export class CreateConnection {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly cipher: CredentialCipher,
  ) {}

  async execute(caller: Caller, userId: string, input: CreateConnectionDto): Promise<ConnectionResponse> {
    if (input.kind !== 'draganddrop' && !input.credentials) {
      throw new InvalidInputError([pydanticIssue('missing', ['body', 'credentials'], input)]);
    }
    const credentials = input.credentials;
    const connection = await this.connections.create(
      { orgId: caller.orgId, userId },
      {
        name: input.name,
        kind: input.kind,
        createdBy: userId,
        credentialsEncrypted: credentials
          ? this.cipher.encrypt({
              access_token: credentials.access_token,
              refresh_token: credentials.refresh_token,
              expires_at: credentials.expires_at,
            })
          : null,
        expiresAt: credentials?.expires_at ? new Date(credentials.expires_at) : null,
      },
    );
    return toConnectionResponse(connection);
  }
}

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

@Injectable()
export class GetConnection {
  constructor(private readonly connections: ConnectionRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<ConnectionResponse> {
    const connection = await this.connections.findVisible({ orgId: caller.orgId, userId }, id);
    if (!connection) throw new NotFoundError('Connection not found');
    return toConnectionResponse(connection);
  }
}

/** DELETE /dc/connections/{id}: 409 while a source that is not archived uses it. */
@Injectable()
export class DeleteConnection {
  constructor(private readonly connections: ConnectionRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<void> {
    const outcome = await this.connections.deleteUnused({ orgId: caller.orgId, userId }, id);
    if (outcome === 'missing') throw new NotFoundError('Connection not found');
    if (outcome === 'in_use')
      throw new ConflictError('Connection is used by a source; archive its sources first');
  }
}

/** POST /dc/connections/{id}/check: refreshes or tests the credentials; a refusal makes it inoperative. */
@Injectable()
export class CheckConnection {
  constructor(
    private readonly connections: ConnectionRepository,
    private readonly tokens: ConnectionTokens,
  ) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<ConnectionResponse> {
    const connection = await this.connections.findVisible({ orgId: caller.orgId, userId }, id);
    if (!connection) throw new NotFoundError('Connection not found');
    return toConnectionResponse(await this.tokens.check(connection));
  }
}
