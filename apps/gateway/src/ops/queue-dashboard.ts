import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';
import { basicAuthAccepts } from './basic-auth';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Bull Board at /admin/queues for the agent-run and source-sync queues, behind HTTP basic auth with
 * ADMIN_USER / ADMIN_PASSWORD. Without ADMIN_PASSWORD nothing is mounted (404).
 */
export async function mountQueueDashboard(app: NestFastifyApplication, settings: Settings): Promise<boolean> {
  const password = settings.adminPassword;
  if (!password) return false;
  const queues = [QUEUE.agentRun, QUEUE.sourceSync].map(
    (name) => new BullMQAdapter(app.get<Queue>(getQueueToken(name), { strict: false })),
  );
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues, serverAdapter: board });

  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (basicAuthAccepts(request.headers.authorization, settings.adminUser, password)) return;
      await reply
        .code(401)
        .header('www-authenticate', 'Basic realm="Parley queues", charset="UTF-8"')
        .send({ detail: 'Queue dashboard credentials required' });
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  });
  return true;
}
