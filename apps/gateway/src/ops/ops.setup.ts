import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { Settings } from '@app/config';
import { setupOpenApi } from './openapi';
import { mountQueueDashboard, QUEUE_DASHBOARD_PATH } from './queue-dashboard';

/** What the gateway serves besides its API: /openapi.json and /docs, and the queue dashboard when enabled. */
export async function setupOps(app: NestFastifyApplication, settings: Settings): Promise<void> {
  setupOpenApi(app, settings);
  if (await mountQueueDashboard(app, settings)) {
    app.get(Logger).log({ msg: 'queue dashboard mounted', path: QUEUE_DASHBOARD_PATH });
  }
}
