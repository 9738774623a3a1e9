import { applyDecorators, createParamDecorator, ExecutionContext, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotentWrite, KEY_IN_USE } from '@app/persistence';
import { RedisAvailableInterceptor } from '../http/redis-available.interceptor';
import {
  IDEMPOTENCY_HEADER,
  IdempotencyInterceptor,
  RequestWithIdempotentWrite,
} from './idempotency.interceptor';

/**
 * A write a client may always retry: refused with 503 before storing anything while Redis is down, and
 * deduplicated by its `Idempotency-Key` header. The route passes `@IdempotentWriteOf()` to its use case, which
 * records its answer in the transaction that stores its effect.
 */
export const SafelyRetried = () =>
  applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: false,
      description:
        'Any unique string (a UUID) per logical request, at most 255 characters. A retry with the same key and ' +
        'body within 24 h gets the first answer again and stores nothing twice; the same key with another body is 422.',
    }),
    UseInterceptors(RedisAvailableInterceptor, IdempotencyInterceptor),
  );

/** The Idempotency-Key claim of a `@SafelyRetried()` request, undefined when it sent no key. */
export const IdempotentWriteOf = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdempotentWrite | undefined =>
    context.switchToHttp().getRequest<RequestWithIdempotentWrite>().idempotentWrite,
);

/** How the OpenAPI document says a @SafelyRetried() route's 409 when its only conflict is its Idempotency-Key's. */
export const KEY_IN_USE_409 = `${KEY_IN_USE}.`;
