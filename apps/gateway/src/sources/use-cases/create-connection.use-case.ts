import { Injectable } from '@nestjs/common';
import { ConnectionResponse, InvalidInputError, pydanticIssue, toConnectionResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { CredentialCipher } from '@app/knowledge';
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
