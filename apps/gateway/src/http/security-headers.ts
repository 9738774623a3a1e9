import helmet from 'helmet';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Settings } from '@app/config';
import { storagePublicUrl } from '@app/storage';

/**
 * Security headers on every gateway response (helmet): nosniff, no framing, no referrer, HSTS, and a
 * Content-Security-Policy that lets the Swagger UI at /docs and the queue dashboard run their own scripts
 * (same-origin files only; their inline styles and data: icons allowed) and nothing else. Routes that serve
 * file bytes tighten it to `sandbox` themselves. The playground may also post its upload form to the storage
 * host, which is another origin.
 */
const contentSecurityPolicy = (settings: Settings) => ({
  useDefaults: false,
  directives: {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'", ...uploadOrigins(settings)],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  },
});

/** Where upload permissions send the browser: the embedded storage host, or the S3 bucket's endpoint. */
function uploadOrigins(settings: Settings): string[] {
  if (settings.storageDriver !== 's3') return [new URL(storagePublicUrl(settings)).origin];
  const endpoint = settings.s3PublicEndpoint ?? settings.s3Endpoint;
  if (endpoint) return [new URL(endpoint).origin];
  return [
    `https://${settings.s3Bucket}.s3.${settings.s3Region}.amazonaws.com`,
    `https://s3.${settings.s3Region}.amazonaws.com`,
  ];
}

/**
 * Helmet's headers, and CORS only for the origins CORS_ORIGINS lists (none by default). Helmet's middleware is
 * built once, here: @fastify/helmet builds it again for every request (its directives parsed each time).
 */
export function applySecurityHeaders(app: NestFastifyApplication, settings: Settings): void {
  const setSecurityHeaders = helmet({ contentSecurityPolicy: contentSecurityPolicy(settings) });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, reply, done) =>
      setSecurityHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined)),
    );
  if (settings.corsOrigins) {
    app.enableCors({
      origin: settings.corsOrigins.split(','),
      // authorization: browsers hold end-user tokens as Bearer credentials (CONTRACTS §17).
      allowedHeaders: [
        'content-type',
        'authorization',
        'x-service-token',
        'x-request-id',
        'x-share-password',
        'idempotency-key',
        // A page resuming an AG-UI run, and an A2A client in a browser (CONTRACTS §22).
        'last-event-id',
        'a2a-version',
        'a2a-extensions',
      ],
      exposedHeaders: ['x-request-id', 'retry-after', 'x-vercel-ai-ui-message-stream'],
    });
  }
}
