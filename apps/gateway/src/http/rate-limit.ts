import { createHash } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyRequest } from 'fastify';
import { Settings } from '@app/config';
import { credentialHeader, endUserTokenIdentity, parseServiceTokenHeader } from '@app/identity';
import { createRedisConnection, prefixedKey } from '@app/redis';

/**
 * Requests per minute per API key (RATE_LIMIT_PER_MINUTE), counted in Redis so every gateway replica shares
 * one count. Over the limit: 429 `{"detail"}` with `Retry-After`; every counted response carries the
 * `RateLimit-Limit/Remaining/Reset` headers. Requests without a key (health, the playground's page) are not
 * counted: they are answered 401 or are public. The count is kept under a hash of the key, never the key; an
 * end-user token is counted on its own, so one browser cannot use up its organization's budget, and by what it
 * signs, not by how it is spelled (CONTRACTS §21): a respelled token shares the token's count.
 */
export async function registerRateLimit(app: NestFastifyApplication, settings: Settings): Promise<void> {
  if (settings.rateLimitPerMinute === 0) return;
  const redis = createRedisConnection(settings, 'rate-limit', {
    // The plugin's own guidance: fail fast rather than queue requests behind a Redis outage.
    connectTimeout: 500,
    maxRetriesPerRequest: 1,
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', async () => void (await redis.quit()));
  await app.register(fastifyRateLimit, {
    global: true,
    max: settings.rateLimitPerMinute,
    timeWindow: 60_000,
    redis,
    nameSpace: `${prefixedKey(settings.redisPrefix, 'rate-limit')}:`,
    // Redis unreachable: serve rather than refuse everyone.
    skipOnError: true,
    enableDraftSpec: true,
    allowList: (request) => keyHash(request) === null,
    keyGenerator: (request) => keyHash(request) ?? request.ip,
    // Thrown: an error with a 4xx statusCode becomes `{"detail": message}` in HttpErrorFilter.
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new Error(
          `Rate limit exceeded: ${context.max} requests per minute; retry in ${Math.ceil(context.ttl / 1000)} s`,
        ),
        { statusCode: 429 },
      ),
  });
}

function keyHash(request: FastifyRequest): string | null {
  const parsed = parseServiceTokenHeader(credentialHeader(request.headers));
  if (!parsed.ok) return null;
  // A key verifies only as the exact string whose hash is stored, so the string is its identity.
  const identity = endUserTokenIdentity(parsed.secret) ?? parsed.secret;
  return createHash('sha256').update(identity).digest('hex');
}
