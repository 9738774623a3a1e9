// Before anything else loads: the heap's growth limit then holds from the first collection, and tracing's
// instrumentations patch http, pg and ioredis as they load.
import { limitHeapGrowth } from '@app/startup/heap-growth';
limitHeapGrowth();
import { startTracing } from '@app/observability/tracing';
startTracing('parley-gateway');
import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { loadSettingsOrExit, Settings } from '@app/config';
import { exitGracefullyOnSignals, startupLogger } from '@app/observability';
import { listenWhileStarting, serviceDependencies, waitForDependencies } from '@app/startup';
import { buildGatewayApp } from './gateway-app';

async function bootstrap(): Promise<void> {
  const settings = loadSettingsOrExit();
  const logger = startupLogger('gateway', settings);
  // Alive from the first moment: a gateway waiting for PostgreSQL or Redis says which, and is not restarted.
  const starting = await listenWhileStarting(settings.port, settings.host);
  await waitForDependencies(serviceDependencies(settings), logger, (waiting) => starting.waitingFor(waiting));

  const app = await buildGatewayApp(settings, logger);
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
