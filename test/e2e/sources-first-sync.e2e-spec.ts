import { Redis } from 'ioredis';
import { useDeployment } from '../support/deployment';
import { useFakeDrive } from '../support/fake-drive-fixture';
import { api } from '../support/http';
import { AppProcess, startWorker } from '../support/processes';
import { untilShowing } from '../support/poll';

/**
 * Issue 36 item 2: a source's first sync happens even when its enqueue after the commit was lost, and a create
 * retried with its Idempotency-Key stores one source. No periodic syncs here (SOURCE_SYNC_INTERVAL_SECONDS=0), so
 * only the sweep of `pending` sources can sync a source whose first job is gone.
 */
const USER = 'alice';

let worker: AppProcess | undefined;
let client: ReturnType<typeof api>;
let connectionId: string;
const drive = useFakeDrive('first file');

// The worker a test starts stops before the deployment's environment is dropped.
afterAll(() => worker?.stop());
const deployment = useDeployment({
  env: () => ({
    ...drive.env(),
    SOURCE_SYNC_INTERVAL_SECONDS: '0',
    RUN_SWEEP_INTERVAL_MS: '500',
    RUN_SWEEP_AFTER_MS: '2000',
  }),
});

beforeAll(async () => {
  client = deployment.client();
  const connection = await client.post(`/dc/connections?user_id=${USER}`, {
    name: 'Drive',
    kind: 'googledrive',
    credentials: { access_token: 'token' },
  });
  connectionId = connection.body.id;
});

const sourceBody = (name: string) => ({
  name,
  connection_id: connectionId,
  store: 'googledrive',
  config: { folder_id: 'shared' },
  scope: 'organization',
});

const until = untilShowing(() => worker?.output, { timeoutMs: 15000, intervalMs: 200, tail: 2000 });

it('syncs a source whose first sync job was lost between the commit and a worker', async () => {
  // No worker yet: the source is stored and its job queued; then Redis loses the job (as when the enqueue after
  // the commit failed, or the gateway died before it).
  const created = await client.post(`/dc/sources?user_id=${USER}`, sourceBody('Lost first sync'));
  expect(created.status).toBe(200);
  expect(created.body.status).toBe('pending');
  const redis = new Redis(deployment.environment.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const keys = await redis.keys(`*${deployment.environment.redisPrefix}*source-sync*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
  } finally {
    redis.disconnect();
  }

  worker = await startWorker(deployment.environment.env, { WORKER_HEALTH_PORT: '0' });
  const synced = await until(
    async () => (await client.get(`/dc/sources/${created.body.pid}`)).body,
    (source) => source.status === 'synced',
  );
  expect(synced.documents_synced).toBe(1);
});

it('stores one source for a create retried with its Idempotency-Key, and answers the retry the same', async () => {
  const headers = { 'idempotency-key': 'create-source-1' };
  const first = await client.post(`/dc/sources?user_id=${USER}`, sourceBody('Retried create'), headers);
  const retry = await client.post(`/dc/sources?user_id=${USER}`, sourceBody('Retried create'), headers);
  expect(first.status).toBe(200);
  expect(retry.status).toBe(200);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(retry.body).toEqual(first.body);

  const other = await client.post(`/dc/sources?user_id=${USER}`, sourceBody('Another body'), headers);
  expect(other.status).toBe(422);
  expect(other.body.detail[0]).toMatchObject({
    loc: ['header', 'idempotency-key'],
    type: 'idempotency_key_reused',
  });

  const listed = (await client.get(`/dc/sources?user_id=${USER}`)).body as { name: string }[];
  expect(listed.filter((source) => source.name === 'Retried create')).toHaveLength(1);
  expect(listed.some((source) => source.name === 'Another body')).toBe(false);
});
