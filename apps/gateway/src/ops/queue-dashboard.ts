import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Settings } from '@app/config';
import { QUEUE } from '@app/contracts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Compares in constant time: both sides are hashed first, so their lengths never differ. */
const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** True when an `Authorization: Basic …` header names the configured user and password. */
export function basicAuthAccepts(header: string | undefined, user: string, password: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Both compared every time, so the answer's timing does not tell which one was wrong.
  const userOk = sameSecret(decoded.slice(0, colon), user);
  const passwordOk = sameSecret(decoded.slice(colon + 1), password);
  return userOk && passwordOk;
}

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
