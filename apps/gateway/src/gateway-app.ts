import fastifyMultipart from '@fastify/multipart';
import { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { IncomingMessage } from 'node:http';
import { Logger } from 'nestjs-pino';
import { v7 as uuidv7 } from 'uuid';
import { Settings } from '@app/config';
import { startProcessMetrics } from '@app/observability';
import { GatewayModule } from './gateway.module';
import { ApiValidationInterceptor } from './http/api-validation.interceptor';
import { jsonBodyParser } from './http/json-body';
import { readOtherBodiesAsText, readStrayMultipartAsText } from './http/other-bodies';
import { applySecurityHeaders } from './http/security-headers';
import { registerRateLimit } from './http/rate-limit';
import { drainConnectionsOnClose } from './ops/drain-on-close';
import { recordHttpMetrics } from './ops/http-metrics';
import { setupOps } from './ops/ops.setup';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_LIMIT = 2 * 1024 * 1024;
const MAX_PATH_PARAM_LENGTH = 2048;

/**
 * The gateway's application, built and configured but neither initialized nor listening: what main.ts serves, and
 * what a benchmark measures routes of (bench/framework-overhead.ts), one build for both.
 */
export async function buildGatewayApp(
  settings: Settings,
  logger: LoggerService,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    // Fastify's default (100) answers a longer path parameter 414 before routing; the DTOs' limits answer 422.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Reuse the caller's x-request-id when it is sane, else make one; pino reads it from the same header.
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
      req.headers['x-request-id'] = id;
      return id;
    },
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  startProcessMetrics('gateway');
  recordHttpMetrics(fastify);
  drainConnectionsOnClose(fastify);

  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(settings), adapter, {
    logger,
  });
  app.useLogger(app.get(Logger));
  applySecurityHeaders(app, settings);
  app.useGlobalInterceptors(new ApiValidationInterceptor());
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT }, jsonBodyParser(fastify));
  readOtherBodiesAsText(fastify, BODY_LIMIT);
  // Multipart bodies are taken for SKILL.md uploads only: one small file.
  await app.register(fastifyMultipart, { limits: { files: 1, fileSize: 1024 * 1024, fields: 5 } });
  readStrayMultipartAsText(fastify, BODY_LIMIT);
  await registerRateLimit(app, settings);
  await setupOps(app, settings);
  return app;
}
