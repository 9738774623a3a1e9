import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadSettingsOrExit } from '@app/config';
import { exitGracefullyOnSignals } from '@app/observability';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const settings = loadSettingsOrExit();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(settings), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  // On SIGTERM/SIGINT: processors stop taking jobs and finish (or hand back) the ones in flight, then close.
  exitGracefullyOnSignals(app, app.get(Logger), settings.shutdownTimeoutMs);
  await app.init();
  app.get(Logger).log('worker started');
}

void bootstrap();
