import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createOrg, OrgFixture } from '../factories/admin';
import { FakeGoogleDrive } from '../support/fake-google-drive';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';
import { WebhookReceiver } from '../support/webhook-receiver';

type Client = ReturnType<typeof api>;

/** What an erasure test runs on: files in a folder of its own, a gateway, a worker, its Redis and an organization. */
export interface ErasureDeployment {
  storageDir: string;
  environment: TestEnvironment;
  gateway: AppProcess;
  worker: AppProcess;
  redis: Redis;
  org: OrgFixture;
}

/**
 * Starts the fake Google Drive (token `token`, one document in the folder `shared`), the webhook receiver, and a
 * deployment allowed to deliver to it and to sync from the drive; `workerEnv` is the worker's own settings.
 */
export async function startErasureDeployment(
  drive: FakeGoogleDrive,
  receiver: WebhookReceiver,
  storagePrefix: string,
  workerEnv: NodeJS.ProcessEnv,
): Promise<ErasureDeployment> {
  const storageDir = await mkdtemp(join(tmpdir(), storagePrefix));
  await drive.start();
  drive.oauth.grant('token');
  drive.addFile('shared', 'a.txt', 'text/plain', 'a synced document');
  const environment = await createTestEnvironment({
    STORAGE_DIR: storageDir,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    GOOGLE_DRIVE_API_URL: drive.url,
    GOOGLE_TOKEN_URL: drive.tokenUrl,
  });
  const [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, workerEnv),
    receiver.listen(),
  ]);
  const redis = new Redis(environment.env.REDIS_URL!);
  const org = await createOrg(environment.env);
  return { storageDir, environment, gateway, worker, redis, org };
}

/**
 * The erasure deployment of a test file: started (as startErasureDeployment) before its tests, stopped after them,
 * the worker stopped being the one that runs then (a test may replace it); its fields are set once started.
 */
export function useErasureDeployment(
  drive: FakeGoogleDrive,
  receiver: WebhookReceiver,
  storagePrefix: string,
  workerEnv: NodeJS.ProcessEnv,
): ErasureDeployment {
  const deployment = {} as ErasureDeployment;
  let started = false;
  beforeAll(async () => {
    Object.assign(deployment, await startErasureDeployment(drive, receiver, storagePrefix, workerEnv));
    started = true;
  }, 120000);
  afterAll(() => stopErasureDeployment(drive, receiver, started ? deployment : undefined));
  return deployment;
}

export async function stopErasureDeployment(
  drive: FakeGoogleDrive,
  receiver: WebhookReceiver,
  deployment: ErasureDeployment | undefined,
): Promise<void> {
  receiver.close();
  deployment?.redis.disconnect();
  await Promise.all([deployment?.gateway.stop(), deployment?.worker.stop()]);
  await drive.stop();
  await deployment?.environment.dispose();
  if (deployment) await rm(deployment.storageDir, { recursive: true, force: true });
}

/**
 * What an end user has beyond their threads and files, as an erasure must find it: a budget, a routine, a Google
 * Drive connection (the fake drive's token `token`) and a private source on its folder `shared`, not yet waited
 * for; answers the ids.
 */
export async function budgetRoutineAndSource(
  client: Client,
  agentId: string,
  userId: string,
  sourceHeaders: Record<string, string> = {},
): Promise<{ routineId: string; connectionId: string; sourcePid: string }> {
  expect((await client.put(`/budgets/users/${userId}`, { period: 'month', max_tokens: 100000 })).status).toBe(
    200,
  );
  const routine = await client.post('/routines', {
    name: `Digest of ${userId}`,
    agent_id: agentId,
    user_id: userId,
    schedule: '0 9 * * 1-5',
    message: { content: '/say good morning' },
  });
  expect(routine.status).toBe(200);
  const connection = await client.post(`/dc/connections?user_id=${userId}`, {
    name: `Drive of ${userId}`,
    kind: 'googledrive',
    credentials: { access_token: 'token' },
  });
  expect(connection.status).toBe(200);
  const source = await client.post(
    `/dc/sources?user_id=${userId}`,
    {
      connection_id: connection.body.id,
      store: 'googledrive',
      config: { folder_id: 'shared' },
      scope: 'private',
    },
    sourceHeaders,
  );
  expect(source.status).toBe(200);
  return { routineId: routine.body.id, connectionId: connection.body.id, sourcePid: source.body.pid };
}
