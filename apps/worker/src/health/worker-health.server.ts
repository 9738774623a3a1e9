import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { renderMetrics, startProcessMetrics } from '@app/observability';
import { REDIS } from '@app/redis';
import { ConsumerStatus } from './consumer-status';

/** Queues a worker must be consuming to be ready. */
const REQUIRED_CONSUMERS: string[] = [QUEUE.agentRun];
const CHECK_TIMEOUT_MS = 1500;

type Check = 'up' | 'down';

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/**
 * The worker has no API, so it serves its probes on a small listener of its own (WORKER_HEALTH_PORT, 0 = off):
 * /health/live (the process answers), /health/ready (PostgreSQL and Redis answer and the agent-run consumer
 * is running: a worker that does not consume its queue is not ready) and /metrics (Prometheus).
 */
@Injectable()
export class WorkerHealthServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerHealthServer.name);
  private server?: Server;

  constructor(
    private readonly settings: Settings,
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly consumers: ConsumerStatus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    startProcessMetrics('worker');
    if (this.settings.workerHealthPort === 0) return;
    const server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.settings.workerHealthPort, this.settings.host, () => resolve());
    }).catch((error: NodeJS.ErrnoException) => {
      // Several workers on one host (not in containers) share the default port: the first one serves it.
      if (error.code !== 'EADDRINUSE') throw error;
      this.logger.warn({ port: this.settings.workerHealthPort }, 'health port in use; health listener off');
    });
    if (!server.listening) return;
    this.server = server;
    this.logger.log({ port: this.settings.workerHealthPort }, 'health listener started');
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** What /health/ready answers: each check, and whether all pass. */
  async readiness(): Promise<{ ok: boolean; body: Record<string, unknown> }> {
    const [postgres, redis] = await Promise.all([
      this.probe(() => this.dataSource.query('SELECT 1')),
      this.probe(() => this.redis.ping()),
    ]);
    const consumers = this.consumers.states();
    const consuming = REQUIRED_CONSUMERS.every((queue) => consumers[queue] === 'running');
    const allRunning = Object.values(consumers).every((state) => state === 'running');
    const ok = postgres === 'up' && redis === 'up' && consuming && allRunning;
    return { ok, body: { status: ok ? 'ok' : 'error', postgres, redis, consumers } };
  }

  private async probe(check: () => Promise<unknown>): Promise<Check> {
    try {
      await withTimeout(check());
      return 'up';
    } catch {
      return 'down';
    }
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'content-type': contentType }).end(body);
    };
    try {
      if (request.method !== 'GET') return send(405, 'application/json', '{"detail":"Method Not Allowed"}');
      if (path === '/health/live') return send(200, 'application/json', '{"status":"ok"}');
      if (path === '/health/ready') {
        const { ok, body } = await this.readiness();
        return send(ok ? 200 : 503, 'application/json', JSON.stringify(body));
      }
      if (path === '/metrics') {
        const { contentType, body } = await renderMetrics();
        return send(200, contentType, body);
      }
      send(404, 'application/json', '{"detail":"Not Found"}');
    } catch (error) {
      this.logger.error({ err: error }, 'health request failed');
      send(500, 'application/json', '{"detail":"Internal error"}');
    }
  }
}
