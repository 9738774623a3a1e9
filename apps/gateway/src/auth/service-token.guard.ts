import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { UnauthenticatedError } from '@app/contracts';
import { ApiKeyVerifier, parseServiceTokenHeader } from '@app/identity';
import { AuthenticatedRequest } from './current-caller.decorator';
import { IS_PUBLIC } from './public.decorator';

/**
 * Global guard: every route needs a valid `x-service-token` (API-SPEC §5), or `Authorization: Bearer <key>`,
 * unless marked @Public().
 */
@Injectable()
export class ServiceTokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: ApiKeyVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // OpenAI and MCP clients send their key as `Authorization: Bearer` (CONTRACTS §18): read when x-service-token is absent.
    const authorization = request.headers.authorization;
    const parsed = parseServiceTokenHeader(
      request.headers['x-service-token'] ??
        (authorization?.startsWith('Bearer ') ? authorization : undefined),
    );
    if (!parsed.ok) throw new UnauthenticatedError(parsed.reason);
    const key = await this.verifier.verify(parsed.secret);
    if (!key) throw new UnauthenticatedError('Invalid or revoked service token');
    request.caller = { orgId: key.orgId, keyId: key.keyId, requestId: String(request.id) };
    return true;
  }
}
