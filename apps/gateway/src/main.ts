// Before anything else loads: the heap's growth limit then holds from the first collection, and tracing's
// instrumentations patch http, pg and ioredis as they load.
import { limitHeapGrowth } from '@app/startup/heap-growth';
limitHeapGrowth();
import { startTracing } from '@app/observability/tracing';
startTracing('parley-gateway');
import 'reflect-metadata';
import fastifyMultipart from '@fastify/multipart';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { IncomingMessage } from 'node:http';
import { Logger } from 'nestjs-pino';
import { v7 as uuidv7 } from 'uuid';
import { loadSettingsOrExit, Settings } from '@app/config';
import { exitGracefullyOnSignals, startProcessMetrics, startupLogger } from '@app/observability';
import { listenWhileStarting, serviceDependencies, waitForDependencies } from '@app/startup';
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

async function bootstrap(): Promise<void> {
  const settings = loadSettingsOrExit();
  const logger = startupLogger('gateway', settings);
  // Alive from the first moment: a gateway waiting for PostgreSQL or Redis says which, and is not restarted.
  const starting = await listenWhileStarting(settings.port, settings.host);
  await waitForDependencies(serviceDependencies(settings), logger, (waiting) => starting.waitingFor(waiting));

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
  adapter.getInstance().addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  startProcessMetrics('gateway');
  recordHttpMetrics(adapter.getInstance());
  drainConnectionsOnClose(adapter.getInstance());

  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(settings), adapter, {
    logger,
  });
  app.useLogger(app.get(Logger));
  applySecurityHeaders(app, settings);
  app.useGlobalInterceptors(new ApiValidationInterceptor());
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT }, jsonBodyParser(adapter.getInstance()));
  readOtherBodiesAsText(adapter.getInstance(), BODY_LIMIT);
  // Multipart bodies are taken for SKILL.md uploads only: one small file.
  await app.register(fastifyMultipart, { limits: { files: 1, fileSize: 1024 * 1024, fields: 5 } });
  readStrayMultipartAsText(adapter.getInstance(), BODY_LIMIT);
  await registerRateLimit(app, settings);
  await setupOps(app, settings);
  // SIGTERM: stop taking connections, let requests in flight finish, close PostgreSQL and Redis, exit 0.
  exitGracefullyOnSignals(app, app.get(Logger), settings.shutdownTimeoutMs);
  // The port passes from the starting server to the app once the app is ready to answer.
  await app.init();
  await starting.close();
  await app.listen(settings.port, settings.host);
  app.get(Logger).log({ msg: whereThingsAre(settings), port: settings.port });
}

/** The one line a person starting the service reads: every address it serves, as a browser on this host reaches it. */
function whereThingsAre(settings: Settings): string {
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const api = `http://${host}:${settings.port}`;
  const dashboard = settings.adminPassword ? `${api}/admin/queues` : 'off (set ADMIN_PASSWORD)';
  const storage =
    settings.storageDriver === 'local'
      ? (settings.storagePublicUrl ?? `http://${host}:${settings.storagePort}`)
      : 'S3';
  return `gateway listening: API ${api}, docs ${api}/docs, queue dashboard ${dashboard}, storage host ${storage}`;
}

bootstrap().catch((error: Error) => {
  // One clear line (the port is taken, the app failed to load) and a non-zero exit for the supervisor.
  process.stderr.write(`gateway failed to start: ${error.message}\n`);
  process.exit(1);
});
