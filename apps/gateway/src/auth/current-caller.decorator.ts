import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { Caller } from '@app/identity';

export type AuthenticatedRequest = FastifyRequest & { caller?: Caller };

/** The Caller the ServiceTokenGuard attached to the request. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.caller) throw new Error('CurrentCaller used on a route without the ServiceTokenGuard');
  return request.caller;
});
