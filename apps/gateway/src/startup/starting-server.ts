import { createServer, Server } from 'node:http';
import { Settings } from '@app/config';
import { Dependency, describeDependency } from './wait-for-dependencies';

/** The gateway's port while its dependencies are awaited: it is alive, and says what it waits for. */
export interface StartingServer {
  waitingFor(dependencies: Dependency[]): void;
  close(): Promise<void>;
}

const RETRY_AFTER_SECONDS = 5;

/**
 * Listens on the gateway's port before the app exists, so a liveness probe does not restart a gateway that is
 * only waiting for PostgreSQL or Redis: `/health/live` answers 200, everything else 503 with the reason.
 */
export async function listenWhileStarting(settings: Settings): Promise<StartingServer> {
  let waiting: Dependency[] = [];
  const server: Server = createServer((request, response) => {
    const live = request.url === '/health/live' || request.url?.startsWith('/health/live?');
    const detail = live
      ? null
      : `Starting: waiting for ${waiting.map(describeDependency).join(' and ') || 'the app to load'}`;
    response.writeHead(live ? 200 : 503, {
      'content-type': 'application/json',
      ...(live ? {} : { 'retry-after': String(RETRY_AFTER_SECONDS) }),
    });
    response.end(JSON.stringify(live ? { status: 'ok' } : { detail }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  return {
    waitingFor: (dependencies) => (waiting = dependencies),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
