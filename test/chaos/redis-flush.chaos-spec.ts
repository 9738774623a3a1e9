import { Client } from 'pg';
import { Redis } from 'ioredis';
import { FakeGoogleDrive } from '../support/fake-google-drive';
import { ChaosStack, timeUntil } from './support/chaos-stack';
import { noCounts } from './support/conversations';
import { report } from './support/report';

/**
 * Issue 36 item 4: FLUSHALL on the suite's own Redis with a gateway and two workers up, none restarted. Periodic
 * work is state in PostgreSQL: a routine firing every 2 s keeps firing, and a source syncing every second syncs
 * again, once the workers' reconciliation (every RUN_SWEEP_INTERVAL_MS, 1 s here) has put their schedulers back.
 */
describe('Redis flushed with every process up', () => {
  const drive = new FakeGoogleDrive();
  let stack: ChaosStack;

  beforeAll(async () => {
    await drive.start();
    drive.oauth.grant('drive-token');
    drive.addFile('shared', 'a.txt', 'text/plain', 'first file');
    stack = await ChaosStack.start({
      GOOGLE_DRIVE_API_URL: drive.url,
      GOOGLE_TOKEN_URL: drive.tokenUrl,
      SOURCE_SYNC_INTERVAL_SECONDS: '1',
      ROUTINE_SECONDS_SCHEDULES: 'true',
    });
    await stack.startGateway();
    await stack.startWorker({ WORKER_HEALTH_PORT: '0' });
    await stack.startWorker({ WORKER_HEALTH_PORT: '0' });
  });

  afterAll(async () => {
    await stack?.dispose();
    await drive.stop();
  });

  async function firedThreads(): Promise<number> {
    const db = new Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM threads WHERE inception = 'routine'`,
      );
      return rows[0].count;
    } finally {
      await db.end();
    }
  }

  it('keeps routines firing and periodic syncs running after FLUSHALL', async () => {
    const client = stack.client();
    const routine = await client.post('/routines', {
      name: 'Pulse',
      agent_id: stack.agentId,
      user_id: 'alice',
      schedule: '*/2 * * * * *',
      message: { content: '/say pulse' },
    });
    expect(routine.status).toBe(200);
    const connection = await client.post('/dc/connections?user_id=alice', {
      name: 'Drive',
      kind: 'googledrive',
      credentials: { access_token: 'drive-token' },
    });
    const source = (
      await client.post('/dc/sources?user_id=alice', {
        connection_id: connection.body.id,
        store: 'googledrive',
        config: { folder_id: 'shared' },
        scope: 'organization',
      })
    ).body as { pid: string };
    const read = async () =>
      (await client.get(`/dc/sources/${source.pid}?user_id=alice`)).body as Record<string, any>;
    await timeUntil(async () => (await firedThreads()) >= 2);
    await timeUntil(async () => (await read()).documents_synced === 1);

    const redis = new Redis(stack.redis.url);
    try {
      expect(await redis.flushall()).toBe('OK');
    } finally {
      redis.disconnect();
    }
    const atFlush = await firedThreads();
    const routineBackMs = await timeUntil(async () => (await firedThreads()) >= atFlush + 2, 20000);
    // A sync under way at the flush is finished by the sweep of forgotten syncs; a new file needs the scheduler.
    await timeUntil(async () => (await read()).status === 'synced', 20000);
    drive.addFile('shared', 'b.txt', 'text/plain', 'second file');
    const syncBackMs = await timeUntil(async () => (await read()).documents_synced === 2, 20000);

    report('redis-flushall', {
      fault: 'FLUSHALL with a gateway and two workers up, none restarted',
      load: 'a routine firing every 2 s, a source syncing every 1 s; sweep interval 1 s',
      counts: noCounts(),
      timings: { routineFiredTwiceAfterFlushMs: routineBackMs, newFileSyncedAfterFlushMs: syncBackMs },
    });
    await client.put(`/routines/${routine.body.id}?user_id=alice`, { active: false });
  });
});
