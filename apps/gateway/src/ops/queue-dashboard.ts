import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { TooManyRequestsError } from '@app/contracts';
import { PasswordAttempts } from '../auth/password-attempts';
import { basicAuthAccepts } from './basic-auth';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Bull Board at /admin/queues for every queue (agent-run, source-sync, webhook-delivery, routine-firing), behind HTTP basic auth with
 * ADMIN_USER / ADMIN_PASSWORD, throttled per client address on Redis (429 with Retry-After once spent).
 * Without ADMIN_PASSWORD no dashboard is mounted: its path answers 404 saying why, not a bare "Not Found".
 */
export async function mountQueueDashboard(app: NestFastifyApplication, settings: Settings): Promise<boolean> {
  const password = settings.adminPassword;
  if (!password) {
    const off = {
      detail: 'The queue dashboard is off: set ADMIN_PASSWORD (8 or more characters) to turn it on',
    };
    app
      .getHttpAdapter()
      .getInstance()
      .all(`${QUEUE_DASHBOARD_PATH}*`, async (_request, reply) => reply.code(404).send(off));
    return false;
  }
  const queues = [
    QUEUE.agentRun,
    QUEUE.sourceSync,
    QUEUE.webhookDelivery,
    QUEUE.routineFiring,
    QUEUE.erasure,
  ].map((name) => new BullMQAdapter(app.get<Queue>(getQueueToken(name), { strict: false })));
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues, serverAdapter: board });

  const attempts = app.get(PasswordAttempts, { strict: false });

  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers.authorization;
      // Only requests that try credentials count: a browser's first, bare request is just asked for them.
      if (header) {
        const attempt = await attempts.take({ dashboardClient: request.ip }).catch((error: unknown) => {
          if (error instanceof TooManyRequestsError) return error;
          throw error;
        });
        if (attempt instanceof TooManyRequestsError) {
          return reply
            .code(429)
            .header('retry-after', attempt.retryAfterSeconds)
            .send({ detail: 'Too many dashboard login attempts' });
        }
        if (basicAuthAccepts(header, settings.adminUser, password)) return attempt.succeeded();
      }
      await reply
        .code(401)
        .header('www-authenticate', 'Basic realm="Parley queues", charset="UTF-8"')
        .send({ detail: 'Queue dashboard credentials required' });
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  });
  return true;
}
