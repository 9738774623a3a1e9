import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { QUEUE } from '@app/contracts';
import { checkAnswers, PROBE_TIMEOUT_MS, renderMetrics, withinProbeTime } from '@app/observability';
import { REDIS } from '@app/redis';
import { ConsumerStatus } from './consumer-status';

/** Queues a worker must be consuming to be ready. */
const REQUIRED_CONSUMERS: string[] = [QUEUE.agentRun];

type Check = 'up' | 'down';

/**
 * The worker's probes on WORKER_HEALTH_PORT, checked by terminus like the gateway's: /health/live (the
 * process answers), /health/ready (PostgreSQL and Redis answer and every consumer runs, the agent-run one
 * at least: a worker that does not consume its queue is not ready) and /metrics (Prometheus). The ready
 * body keeps the worker's flat shape: `{status, postgres, redis, consumers}`.
 */
@Controller()
export class WorkerHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly consumers: ConsumerStatus,
  ) {}

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const consumers = this.consumers.states();
    const result = await this.health
      .check([
        () => this.database.pingCheck('postgres', { timeout: PROBE_TIMEOUT_MS }),
        () => checkAnswers(this.indicators, 'redis', () => withinProbeTime(this.redis.ping())),
        () => {
          const indicator = this.indicators.check('consumers');
          const consuming = REQUIRED_CONSUMERS.every((queue) => consumers[queue] === 'running');
          const allRunning = Object.values(consumers).every((state) => state === 'running');
          return consuming && allRunning ? indicator.up() : indicator.down();
        },
      ])
      .catch((error: unknown) => checkResultOf(error));
    const ok = result.status === 'ok';
    void reply.status(ok ? 200 : 503);
    return {
      status: ok ? 'ok' : 'error',
      postgres: statusOf(result, 'postgres'),
      redis: statusOf(result, 'redis'),
      consumers,
    };
  }

  @Get('metrics')
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { contentType, body } = await renderMetrics();
    void reply.header('content-type', contentType);
    return body;
  }
}

/** A failed check throws its result inside a 503 exception: the result is what the body is made of. */
function checkResultOf(error: unknown): HealthCheckResult {
  const response = error instanceof ServiceUnavailableException ? error.getResponse() : undefined;
  if (response && typeof response === 'object' && 'details' in response) return response as HealthCheckResult;
  throw error;
}

function statusOf(result: HealthCheckResult, key: string): Check {
  return result.details[key]?.status === 'up' ? 'up' : 'down';
}
