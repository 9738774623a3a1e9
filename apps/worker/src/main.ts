// Before anything else loads: the heap's growth limit then holds from the first collection, and tracing's
// instrumentations patch http, pg and ioredis as they load.
import { limitHeapGrowth } from '@app/startup/heap-growth';
limitHeapGrowth();
import { startTracing } from '@app/observability/tracing';
startTracing('parley-worker');
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { loadSettingsOrExit } from '@app/config';
import { exitGracefullyOnSignals, startupLogger } from '@app/observability';
import { listenWhileStarting, serviceDependencies, waitForDependencies } from '@app/startup';
import { HandBackOnStop } from './agent-run/hand-back-on-stop';
import { listenForProbes, onHealthPort } from './health/listen-for-probes';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const settings = loadSettingsOrExit();
  // The worker has no API: an HTTP app only for its probes and metrics, when WORKER_HEALTH_PORT is not 0.
  const probed = settings.workerHealthPort !== 0;
  const logger = startupLogger('worker', settings);
  // Alive while it waits for PostgreSQL or Redis, as the gateway is: one line per retry names the setting, and
  // a liveness probe does not restart a worker that only waits.
  const starting = probed
    ? await onHealthPort(settings, () => listenWhileStarting(settings.workerHealthPort, settings.host))
    : null;
  await waitForDependencies(serviceDependencies(settings), logger, (waiting) =>
    starting?.waitingFor(waiting),
  );
  const app = probed
    ? await NestFactory.create<NestFastifyApplication>(WorkerModule.forRoot(settings), new FastifyAdapter(), {
        logger,
      })
    : await NestFactory.createApplicationContext(WorkerModule.forRoot(settings), { logger });
  app.useLogger(app.get(Logger));
  // On SIGTERM/SIGINT: consumers stop taking jobs, agent runs in flight go back to the queue, then all closes.
  const handBack = app.get(HandBackOnStop);
  exitGracefullyOnSignals(app, app.get(Logger), settings.shutdownTimeoutMs, () => handBack.run());
  await app.init();
  // The port passes from the starting server to the app once the app is ready to answer.
  await starting?.close();
  if (probed) await listenForProbes(app as NestFastifyApplication, settings);
  app.get(Logger).log('worker started');
}

bootstrap().catch((error: Error) => {
  // Before the logger exists, or when start-up fails: one clear line, and a non-zero exit for the supervisor.
  process.stderr.write(`worker failed to start: ${error.message}\n`);
  process.exit(1);
});
