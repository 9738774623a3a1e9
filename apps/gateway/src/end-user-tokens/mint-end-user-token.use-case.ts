import { Inject, Injectable } from '@nestjs/common';
import {
  END_USER_TOKEN_DEFAULT_TTL_SECONDS,
  EndUserTokenResponse,
  MintEndUserTokenDto,
  NotFoundError,
} from '@app/contracts';
import { Caller, signEndUserToken } from '@app/identity';
import { AgentRepository, EndUserMemoryNamespaceRepository } from '@app/persistence';
import { END_USER_TOKEN_SECRET } from '../auth/end-user-token.secret';

/**
 * A short-lived token a browser may hold, acting as one end user of the key's organization (CONTRACTS §17), with
 * the memory namespaces its runs may use (§21).
 */
@Injectable()
export class MintEndUserToken {
  constructor(
    private readonly agents: AgentRepository,
    private readonly grantedNamespaces: EndUserMemoryNamespaceRepository,
    @Inject(END_USER_TOKEN_SECRET) private readonly secret: string,
  ) {}

  async execute(caller: Caller, input: MintEndUserTokenDto): Promise<EndUserTokenResponse> {
    const agentIds = input.agent_ids ? [...new Set(input.agent_ids)] : null;
    for (const agentId of agentIds ?? []) {
      if (!(await this.agents.findActive(caller.orgId, agentId))) throw new NotFoundError('Agent not found');
    }
    // Whole seconds: the token carries its expiry in seconds, and the answer says exactly that instant.
    const ttlSeconds = input.ttl_seconds ?? END_USER_TOKEN_DEFAULT_TTL_SECONDS;
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + ttlSeconds) * 1000);
    const memoryNamespaces = [...new Set(input.memory_namespaces ?? [])];
    // Recorded before the token exists, so erasure and export never miss a namespace a token was granted (§21).
    await this.grantedNamespaces.grant({ orgId: caller.orgId, userId: input.user_id }, memoryNamespaces);
    const token = signEndUserToken(this.secret, {
      keyId: caller.keyId,
      orgId: caller.orgId,
      userId: input.user_id,
      agentIds,
      memoryNamespaces,
      expiresAt,
    });
    return { token, user_id: input.user_id, expires_at: expiresAt.toISOString() };
  }
}
