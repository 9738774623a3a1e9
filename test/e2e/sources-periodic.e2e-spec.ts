import { useDeployment } from '../support/deployment';
import { useFakeDrive } from '../support/fake-drive-fixture';
import { api } from '../support/http';
import { untilShowing } from '../support/poll';

/** Periodic syncs: each live source has a BullMQ job scheduler (SOURCE_SYNC_INTERVAL_SECONDS); archiving stops it. */
let client: ReturnType<typeof api>;
const drive = useFakeDrive('first file');

const deployment = useDeployment({
  env: () => ({ ...drive.env(), SOURCE_SYNC_INTERVAL_SECONDS: '1' }),
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0' },
});

beforeAll(() => {
  client = deployment.client();
});

const until = untilShowing(() => deployment.worker.output, { timeoutMs: 15000, intervalMs: 200, tail: 2000 });

it('syncs a source again on its own, and stops once it is archived', async () => {
  const connection = (
    await client.post('/dc/connections?user_id=u', {
      name: 'Drive',
      kind: 'googledrive',
      credentials: { access_token: 'token' },
    })
  ).body;
  const source = (
    await client.post('/dc/sources?user_id=u', {
      connection_id: connection.id,
      store: 'googledrive',
      config: { folder_id: 'shared' },
      scope: 'organization',
    })
  ).body;
  const get = async () => (await client.get(`/dc/sources/${source.pid}`)).body;
  await until(get, (s) => s.status === 'synced' && s.documents_synced === 1);

  drive.addFile('shared', 'b.txt', 'text/plain', 'second file');
  await until(get, (s) => s.status === 'synced' && s.documents_synced === 2);

  expect((await client.delete(`/dc/sources/${source.pid}`)).status).toBe(204);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const feedReads = () => drive.requests.filter((r) => r.path === '/drive/v3/changes').length;
  const before = feedReads();
  drive.addFile('shared', 'c.txt', 'text/plain', 'third file');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(feedReads()).toBe(before);
  expect((await get()).documents_synced).toBe(2);
});
