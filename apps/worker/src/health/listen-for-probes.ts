import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Settings } from '@app/config';

/**
 * Opens the health listener. A port already taken stops the worker: running on would leave it unprobed while
 * another process answers its probes.
 */
export async function listenForProbes(app: NestFastifyApplication, settings: Settings): Promise<void> {
  await onHealthPort(settings, () => app.listen(settings.workerHealthPort, settings.host));
}

/**
 * Listens on WORKER_HEALTH_PORT with `listen` (the app's listener, or the one answering while the worker waits
 * at start), saying which setting to change when the port is taken.
 */
export async function onHealthPort<T>(settings: Settings, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `WORKER_HEALTH_PORT ${settings.workerHealthPort} is already in use: give each worker on this host ` +
        'its own port, or 0 to turn its health listener off',
    );
  }
}
