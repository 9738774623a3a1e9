import helmet from '@fastify/helmet';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Settings } from '@app/config';

/**
 * Security headers on every gateway response (@fastify/helmet): nosniff, no framing, no referrer, HSTS, and a
 * Content-Security-Policy that lets the Swagger UI at /docs and the queue dashboard run their own scripts
 * (same-origin files only; their inline styles and data: icons allowed) and nothing else. Routes that serve
 * file bytes tighten it to `sandbox` themselves.
 */
const CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  },
};

/** Helmet's headers, and CORS only for the origins CORS_ORIGINS lists (none by default). */
export async function applySecurityHeaders(app: NestFastifyApplication, settings: Settings): Promise<void> {
  await app.register(helmet, { contentSecurityPolicy: CONTENT_SECURITY_POLICY });
  if (settings.corsOrigins) {
    app.enableCors({
      origin: settings.corsOrigins.split(','),
      allowedHeaders: ['content-type', 'x-service-token', 'x-request-id', 'x-share-password'],
      exposedHeaders: ['x-request-id', 'retry-after'],
    });
  }
}
