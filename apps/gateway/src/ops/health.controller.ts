import { InjectQueue } from '@nestjs/bullmq';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Queue } from 'bullmq';
import { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { QUEUE } from '@app/contracts';
import { checkAnswers, withinProbeTime } from '@app/observability';
import { AgentRunQueue } from '@app/queues';
import { REDIS } from '@app/redis';
import { SharedSubscriber } from '@app/run-events';
import { RunAdmission } from '../admission/run-admission';
import { Public } from '../auth/public.decorator';
import { PostgresReadinessProbe } from './postgres-readiness.probe';

/**
 * Liveness (the process answers), serving (the app answers requests itself), readiness (PostgreSQL and Redis
 * answer, the stream subscriber's connection included) and consumers (some worker consumes each queue); no token
 * needed. Every probe answers within a second, whatever a dependency does.
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly postgres: PostgresReadinessProbe,
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly subscriber: SharedSubscriber,
    private readonly agentRunQueue: AgentRunQueue,
    private readonly admission: RunAdmission,
    @InjectQueue(QUEUE.agentRun) agentRuns: Queue,
    @InjectQueue(QUEUE.sourceSync) sourceSyncs: Queue,
    @InjectQueue(QUEUE.webhookDelivery) webhookDeliveries: Queue,
    @InjectQueue(QUEUE.routineFiring) routineFirings: Queue,
    @InjectQueue(QUEUE.erasure) erasures: Queue,
  ) {
    this.queues = [agentRuns, sourceSyncs, webhookDeliveries, routineFirings, erasures];
  }

  /** Every queue a worker consumes: a queue nobody consumes is work that silently never happens. */
  private readonly queues: Queue[];

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * 200 once the app itself answers, which is after its connections (a Redis Cluster's subscriber node
   * included) are ready; while the process waits for PostgreSQL or Redis at start, its starting server answers
   * this 503. It stays 200 through a later outage, when the app answers 503 with Retry-After itself: the
   * orchestrator's readiness probe, so one outage does not take every gateway out of the Service at once.
   */
  @Get('serving')
  serving(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => checkAnswers(this.indicators, 'postgres', () => this.postgres.answers()),
      () =>
        checkAnswers(this.indicators, 'redis', async () => {
          // A disconnected client is down at once: a command would only wait in its offline queue.
          if (this.redis.status !== 'ready') throw new Error(`connection ${this.redis.status}`);
          await withinProbeTime(this.redis.ping());
        }),
      () => {
        // Stream opens subscribe on their own connection (on a Cluster, a node ioredis picks and opens lazily).
        const indicator = this.indicators.check('redis-subscriber');
        return this.subscriber.isReady() ? indicator.up() : indicator.down({ message: 'not ready' });
      },
    ]);
  }

  /** The agent runs outstanding (`AgentRunQueue.outstanding`): what the chart's KEDA trigger scales workers on. */
  @Get('runs')
  async runs(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      return await withinProbeTime(this.agentRunQueue.outstanding());
    } catch (error) {
      void reply.status(503);
      return { status: 'error', error: (error as Error).message };
    }
  }

  /**
   * Whether this gateway starts new replies now (admission control, ADMISSION_MAX_*), with the figures it decided
   * on: 503 while it refuses them. Kept out of /health/ready: a gateway at capacity still serves streams and
   * reads, and every gateway sees the same run backlog, so taking it out of the load balancer would help no one.
   */
  @Get('admission')
  admissionState(@Res({ passthrough: true }) reply: FastifyReply) {
    const state = this.admission.current;
    void reply.status(state.admitting ? 200 : 503);
    return { status: state.admitting ? 'ok' : 'at_capacity', ...state };
  }

  /**
   * How many workers consume each queue. Kept out of /health/ready on purpose: a gateway without workers still
   * serves reads and stores requests (their runs wait), so it must stay in the load balancer; operators alert
   * on this one instead (503 when a queue has no consumer, or Redis does not answer).
   */
  @Get('workers')
  async workers(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      const counts = await withinProbeTime(Promise.all(this.queues.map((queue) => queue.getWorkersCount())));
      const consumers = Object.fromEntries(this.queues.map((queue, index) => [queue.name, counts[index]]));
      const ok = counts.every((count) => count > 0);
      void reply.status(ok ? 200 : 503);
      return { status: ok ? 'ok' : 'error', consumers };
    } catch (error) {
      void reply.status(503);
      return { status: 'error', error: (error as Error).message };
    }
  }
}
