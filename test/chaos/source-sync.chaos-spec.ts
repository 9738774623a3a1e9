import { Client } from 'pg';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeGoogleDrive } from '../support/fake-google-drive';
import { ChaosStack, timeUntil } from './support/chaos-stack';
import { noCounts } from './support/conversations';
import { report } from './support/report';

type Source = Record<string, any>;

/**
 * Issue #17 item 9: source syncs under faults. A worker SIGKILLed mid-sync, Redis killed (data lost) mid-sync,
 * the store answering 429/500 in bursts: each sync ends `synced`, every document is indexed once, the counters
 * match the documents.
 */
describe('Source syncs under faults', () => {
  const drive = new FakeGoogleDrive();
  let storageDir: string;
  let stack: ChaosStack;
  let source: Source;
  let expected = 0;

  const client = () => stack.client();
  const read = async () => (await client().get(`/dc/sources/${source.pid}?user_id=alice`)).body as Source;
  const addFiles = (count: number) => {
    for (let i = 0; i < count; i++) {
      drive.addFile(
        'company',
        `doc-${expected}.md`,
        'text/markdown',
        `# Doc ${expected}\nPassage of document ${expected}.`,
      );
      expected++;
    }
  };

  /** Documents indexed more than once (same external id twice) and the counters against the documents table. */
  async function audit(): Promise<{ duplicates: number; indexed: number; countersExact: boolean }> {
    const db = new Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ duplicates: string; indexed: string }>(
        `SELECT count(*) - count(DISTINCT external_id) AS duplicates,
                count(*) FILTER (WHERE status = 'indexed') AS indexed
         FROM documents WHERE source_id = $1`,
        [source.id],
      );
      const current = await read();
      const indexed = Number(rows[0].indexed);
      return {
        duplicates: Number(rows[0].duplicates),
        indexed,
        countersExact: current.documents_synced === indexed && current.documents_failed === 0,
      };
    } finally {
      await db.end();
    }
  }

  /**
   * After a sync under a fault: its counts and time reported under `name`, and every document indexed once, with
   * the source's counters matching the documents table.
   */
  async function expectIndexedOnce(
    name: string,
    faultAndLoad: { fault: string; load: string },
    recoveryMs: number,
  ) {
    const audited = await audit();
    report(name, {
      ...faultAndLoad,
      counts: { ...noCounts(), completed: audited.indexed, lost: expected - audited.indexed },
      timings: { syncedAfterRequestMs: recoveryMs },
    });
    expect(audited).toEqual({ duplicates: 0, indexed: expected, countersExact: true });
  }

  async function syncAndWait(fault: () => Promise<void>): Promise<number> {
    const lastSynced = (await read()).last_synced_at;
    expect((await client().post(`/dc/sources/${source.pid}/sync?user_id=alice`)).status).toBe(202);
    await fault();
    return timeUntil(async () => {
      const current = await read();
      return current.status === 'synced' && current.last_synced_at !== lastSynced;
    }, 90000);
  }

  /** Until the sync under way has indexed some, not all, of the new documents. */
  const midSync = (before: number) =>
    timeUntil(async () => {
      const current = await read();
      return (
        current.status === 'syncing' &&
        current.documents_synced > before &&
        current.documents_synced < expected
      );
    }, 30000);

  beforeAll(async () => {
    await drive.start();
    drive.downloadDelayMs = 40;
    storageDir = await mkdtemp(join(tmpdir(), 'parley-chaos-sync-'));
    stack = await ChaosStack.start({
      GOOGLE_DRIVE_API_URL: drive.url,
      GOOGLE_TOKEN_URL: drive.tokenUrl,
      STORE_RETRY_MAX_DELAY_MS: '2000',
      SOURCE_SYNC_INTERVAL_SECONDS: '0',
      STORAGE_DIR: storageDir,
    });
    await stack.startGateway();
    await stack.startWorker();
    drive.oauth.grant('drive-token', 'drive-refresh');
    drive.addFolder('root', 'Company', 'company');
    addFiles(60);
    const connection = await client().post('/dc/connections?user_id=alice', {
      name: 'Drive',
      kind: 'googledrive',
      credentials: { access_token: 'drive-token', refresh_token: 'drive-refresh' },
    });
    source = (
      await client().post('/dc/sources?user_id=alice', {
        connection_id: connection.body.id,
        store: 'googledrive',
        config: { folder_id: 'company', recursive: true },
        scope: 'organization',
        name: 'Company',
      })
    ).body as Source;
  });

  afterAll(async () => {
    await stack?.dispose();
    await drive.stop();
    if (storageDir) await rm(storageDir, { recursive: true, force: true });
  });

  it('resumes a sync whose worker was SIGKILLed mid-way', async () => {
    const recoveryMs = await syncAndWait(async () => {
      await midSync(0);
      await stack.workers[0].kill();
      await stack.startWorker();
    });
    await expectIndexedOnce(
      'sync-worker-killed',
      {
        fault: 'the only worker SIGKILLed mid-sync (60 documents), a new one started',
        load: '1 source of 60 Google Drive documents, 40 ms per download',
      },
      recoveryMs,
    );
  });

  it('resumes a sync whose job Redis lost mid-way, with its worker', async () => {
    const before = expected;
    addFiles(40);
    drive.downloadDelayMs = 150;
    const recoveryMs = await syncAndWait(async () => {
      await midSync(before);
      // Both at once: no process left to finish the sync, no job left to redeliver it. Only PostgreSQL knows.
      await Promise.all([stack.redis.kill(), stack.workers.at(-1)!.kill()]);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await stack.redis.restart();
      await stack.startWorker();
    });
    await expectIndexedOnce(
      'sync-redis-lost',
      {
        fault:
          'redis-server and the worker SIGKILLed together mid-sync (job lost), Redis restarted empty after 2 s, a new worker',
        load: '40 new documents on an incremental sync',
      },
      recoveryMs,
    );
  });

  it('rides out 429 and 500 bursts from the store', async () => {
    addFiles(30);
    drive.downloadDelayMs = 40;
    const recoveryMs = await syncAndWait(async () => {
      drive.failBurst(/^\/drive\/v3\/changes$/, [500, 429]);
      drive.failBurst(/^\/drive\/v3\/files\/file/, [429, 429, 429, 500, 500, 500, 429, 500]);
    });
    await expectIndexedOnce(
      'sync-store-bursts',
      {
        fault: 'the store answered 2 failures on the changes feed and a burst of 8 (429/500) on downloads',
        load: '30 new documents on an incremental sync',
      },
      recoveryMs,
    );
    expect((await read()).status).toBe('synced');
  });
});
