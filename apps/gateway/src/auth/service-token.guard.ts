import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, UnauthenticatedError } from '@app/contracts';
import {
  ApiKeyVerifier,
  Caller,
  credentialHeader,
  END_USER_TOKEN_FORBIDDEN,
  END_USER_TOKEN_PREFIX,
  parseServiceTokenHeader,
  verifyEndUserToken,
} from '@app/identity';
import { AuthenticatedRequest } from './current-caller.decorator';
import { END_USER_TOKEN_ALLOWED } from './end-user-token-allowed.decorator';
import { END_USER_TOKEN_SECRET } from './end-user-token.secret';
import { pinEndUser } from './pin-end-user';
import { IS_PUBLIC } from './public.decorator';

/**
 * Global guard: every route needs a valid key or end-user token (API-SPEC §5, CONTRACTS §17) unless marked
 * @Public(); an end-user token only on routes marked @EndUserTokenAllowed(), and only as its end user.
 */
@Injectable()
export class ServiceTokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: ApiKeyVerifier,
    @Inject(END_USER_TOKEN_SECRET) private readonly endUserTokenSecret: string,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const parsed = parseServiceTokenHeader(credentialHeader(request.headers));
    if (!parsed.ok) throw new UnauthenticatedError(parsed.reason);
    const requestId = String(request.id);
    if (!parsed.secret.startsWith(END_USER_TOKEN_PREFIX)) {
      const key = await this.verifier.verify(parsed.secret);
      if (!key) throw new UnauthenticatedError('Invalid or revoked service token');
      request.caller = { orgId: key.orgId, keyId: key.keyId, requestId };
      return true;
    }
    request.caller = await this.endUserCaller(parsed.secret, requestId);
    if (!this.reflector.get<boolean>(END_USER_TOKEN_ALLOWED, context.getHandler())) {
      throw new ForbiddenError(END_USER_TOKEN_FORBIDDEN);
    }
    pinEndUser(request, request.caller.endUser!);
    return true;
  }

  /** A token signed here, unexpired, whose minting key is still live (the same cached check a key gets). */
  private async endUserCaller(token: string, requestId: string): Promise<Caller> {
    const verified = verifyEndUserToken(this.endUserTokenSecret, token);
    if (!verified.ok) throw new UnauthenticatedError(verified.reason);
    const { grant } = verified;
    if (!(await this.verifier.isLive(grant.keyId))) {
      throw new UnauthenticatedError('The key of this end-user token is revoked');
    }
    return {
      orgId: grant.orgId,
      keyId: grant.keyId,
      requestId,
      endUser: { userId: grant.userId, agentIds: grant.agentIds, memoryNamespaces: grant.memoryNamespaces },
    };
  }
}
