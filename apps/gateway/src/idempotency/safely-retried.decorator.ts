import { applyDecorators, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { KEY_IN_USE } from '@app/persistence';
import { RedisAvailableGuard } from '../http/redis-available.guard';
import { IDEMPOTENCY_HEADER, IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * A write a client may always retry: refused with 503 before storing anything while Redis is down, and
 * deduplicated by its `Idempotency-Key` header. The route passes `@IdempotentWriteOf()` (idempotency.interceptor.ts)
 * to its use case, which records its answer in the transaction that stores its effect.
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
    UseGuards(RedisAvailableGuard),
    UseInterceptors(IdempotencyInterceptor),
  );

/** How the OpenAPI document says a @SafelyRetried() route's 409 when its only conflict is its Idempotency-Key's. */
export const KEY_IN_USE_409 = `${KEY_IN_USE}.`;
