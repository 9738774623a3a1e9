import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { EndUserTokenResponse, MintEndUserTokenDto } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { MintEndUserToken } from './mint-end-user-token.use-case';

/** Tokens a browser may hold (CONTRACTS §17); minting one needs the service key itself. */
@ServiceApiController('end-user-tokens', 'end-user-tokens')
export class EndUserTokensController {
  constructor(private readonly mintEndUserToken: MintEndUserToken) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mint an end-user token',
    description:
      'A signed eut_ token that acts as one end user of the organization until expires_at, on the chat ' +
      'endpoints, the reply stream, the upload permission and /ai-sdk/chat (403 elsewhere): hand it to a ' +
      'browser or app instead of the key. A user_id in its requests must be its own or absent; with ' +
      'agent_ids it may use only those agents; with memory_namespaces its threads may be bound to those ' +
      'namespaces only (403 for any other; without it, to none). Revoking the key revokes its tokens at once.',
  })
  @ApiOkResponse({ type: EndUserTokenResponse })
  @ApiErrors([400, 403, 404, 413], {
    403: 'Not allowed with an end-user token: only a key mints them.',
    404: 'Agent not found: an agent_ids entry that is not an active agent of the organization.',
  })
  mint(@CurrentCaller() caller: Caller, @Body() body: MintEndUserTokenDto): Promise<EndUserTokenResponse> {
    return this.mintEndUserToken.execute(caller, body);
  }
}
