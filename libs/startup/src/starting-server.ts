import { createServer, Server } from 'node:http';
import { Dependency, describeDependency } from './wait-for-dependencies';

/** A process's HTTP port while its dependencies are awaited: it is alive, and says what it waits for. */
interface StartingServer {
  waitingFor(dependencies: Dependency[]): void;
  close(): Promise<void>;
}

const RETRY_AFTER_SECONDS = 5;

/**
 * Listens on the port of a process (the gateway's PORT, the worker's WORKER_HEALTH_PORT) before its app
 * exists, so a liveness probe does not restart one that is only waiting for PostgreSQL or Redis:
 * `/health/live` answers 200, everything else 503 with the reason.
 */
export async function listenWhileStarting(port: number, host: string): Promise<StartingServer> {
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
    server.listen(port, host, resolve);
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
