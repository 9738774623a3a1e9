import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { docxOf, MIME, pdfOf, pptxOf, xlsxOf } from '../support/document-fixtures';
import { FakeGoogleDrive, GOOGLE_DOC } from '../support/fake-google-drive';
import { FakeMsGraph } from '../support/fake-ms-graph';
import { api } from '../support/http';
import { postUpload } from '../support/uploads';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/**
 * Data sources on real processes against local fakes of Google Drive v3 and Microsoft Graph (and their token
 * endpoints): syncs, incremental syncs, token refresh and revocation, throttling, limits, a worker killed
 * mid-sync, drag-and-drop uploads, visibility, and `company_documents` in a chat reply.
 */
const CONNECTION_FIELDS = ['checked_at', 'created_by', 'expires_at', 'id', 'inoperative', 'name', 'status'];
const SOURCE_FIELDS = [
  'archived_at',
  'config',
  'connection',
  'created_at',
  'created_by',
  'documents_embedded',
  'documents_failed',
  'documents_synced',
  'embedded_size',
  'id',
  'last_synced_at',
  'name',
  'oversized_documents',
  'pid',
  'scope',
  'size',
  'status',
  'status_reason',
  'store',
];
const MAX_BYTES = 20000;
const ALICE = 'alice';
const BOB = 'bob';

let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let storageDir: string;
const drive = new FakeGoogleDrive();
const graph = new FakeMsGraph();
let org: OrgFixture;
let client: ReturnType<typeof api>;
let otherOrg: ReturnType<typeof api>;
/** The first Drive source, for the searches at the end. */
let driveSource1: Source;
const workerEnv = { WORKER_HEALTH_PORT: '0' };

type Source = Record<string, any>;

async function waitForSource(
  pid: string,
  done: (source: Source) => boolean,
  timeoutMs = 30000,
): Promise<Source> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get(`/dc/sources/${pid}?user_id=${ALICE}`);
    if (done(response.body)) return response.body;
    if (Date.now() > deadline)
      throw new Error(
        `source not done in time: ${JSON.stringify(response.body)}\n${worker.output.slice(-3000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const synced =
  (after: string | null = null) =>
  (source: Source) =>
    (source.status === 'synced' && source.last_synced_at !== after) || source.status === 'error';

async function driveConnection(accessToken: string, refreshToken?: string, expiresAt?: string) {
  const response = await client.post(`/dc/connections?user_id=${ALICE}`, {
    name: 'Drive',
    kind: 'googledrive',
    credentials: { access_token: accessToken, refresh_token: refreshToken, expires_at: expiresAt },
  });
  expect(response.status).toBe(200);
  return response.body;
}

async function driveSource(connectionId: string, folderId: string, scope = 'organization') {
  const response = await client.post(`/dc/sources?user_id=${ALICE}`, {
    connection_id: connectionId,
    store: 'googledrive',
    config: { folder_id: folderId, recursive: true },
    scope,
    name: `Folder ${folderId}`,
  });
  expect(response.status).toBe(200);
  return response.body as Source;
}

beforeAll(async () => {
  await Promise.all([drive.start(), graph.start()]);
  storageDir = await mkdtemp(join(tmpdir(), 'parley-sources-e2e-'));
  environment = await createTestEnvironment({
    GOOGLE_DRIVE_API_URL: drive.url,
    GOOGLE_TOKEN_URL: drive.tokenUrl,
    MS_GRAPH_API_URL: graph.apiUrl,
    MS_TOKEN_URL: graph.tokenUrl,
    DOCUMENT_MAX_BYTES: String(MAX_BYTES),
    STORE_RETRY_MAX_DELAY_MS: '5000',
    SOURCE_SYNC_INTERVAL_SECONDS: '0',
    STORAGE_DIR: storageDir,
  });
  [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, workerEnv),
  ]);
  org = await createOrg(environment.env);
  client = api(gateway.url!, org.key);
  otherOrg = api(gateway.url!, (await createOrg(environment.env)).key);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await Promise.all([drive.stop(), graph.stop()]);
  await environment?.dispose();
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
});

describe('connections', () => {
  it('answers exactly the seven Connection fields and stores the credentials encrypted only', async () => {
    const connection = await driveConnection(
      'secret-access-token-1',
      'secret-refresh-token-1',
      '2030-01-01T00:00:00Z',
    );
    expect(Object.keys(connection).sort()).toEqual(CONNECTION_FIELDS);
    expect(connection).toMatchObject({
      status: 'active',
      created_by: ALICE,
      inoperative: false,
      expires_at: '2030-01-01T00:00:00.000Z',
      checked_at: null,
    });
    const [row] = await queryDatabase<{ credentials_encrypted: string }>(
      environment.databaseUrl,
      `SELECT credentials_encrypted FROM connections WHERE id = $1`,
      [connection.id],
    );
    expect(row.credentials_encrypted).toMatch(/^v1:/);
    expect(row.credentials_encrypted).not.toContain('secret-access-token-1');
    expect(JSON.stringify((await client.get(`/dc/connections/${connection.id}`)).body)).not.toContain(
      'secret',
    );
    expect((await client.get('/dc/connections')).body.map((c: { id: string }) => c.id)).toContain(
      connection.id,
    );
    expect((await otherOrg.get(`/dc/connections/${connection.id}`)).status).toBe(404);
  });

  it('refuses bad input with the 422 shape', async () => {
    const missingUser = await client.post('/dc/connections', {
      name: 'x',
      kind: 'googledrive',
      credentials: { access_token: 'a' },
    });
    expect(missingUser.status).toBe(422);
    expect(missingUser.body.detail[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'missing' });
    const badKind = await client.post(`/dc/connections?user_id=${ALICE}`, { name: 'x', kind: 'dropbox' });
    expect(badKind.body.detail[0]).toMatchObject({ loc: ['body', 'kind'], type: 'enum' });
    const noCredentials = await client.post(`/dc/connections?user_id=${ALICE}`, {
      name: 'x',
      kind: 'sharepoint',
    });
    expect(noCredentials.body.detail[0]).toMatchObject({ loc: ['body', 'credentials'], type: 'missing' });
  });

  it('refuses a bad store, scope or config of a source with the 422 shape', async () => {
    const connection = await driveConnection('t');
    const base = {
      connection_id: connection.id,
      store: 'googledrive',
      config: { folder_id: 'abc' },
      scope: 'organization',
    };
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ store: 'box' }, ['body', 'store'], 'enum'],
      [{ scope: 'public' }, ['body', 'scope'], 'enum'],
      [{ config: 'x' }, ['body', 'config'], 'dict_type'],
      [{ config: {} }, ['body', 'config', 'folder_id'], 'missing'],
      [{ config: { folder_id: "a' or 1=1" } }, ['body', 'config', 'folder_id'], 'string_pattern_mismatch'],
      [{ config: { folder_id: 'a', recursive: 'yes' } }, ['body', 'config', 'recursive'], 'bool_type'],
      [{ store: 'sharepoint', config: { folder_path: 'x' } }, ['body', 'config', 'site_id'], 'missing'],
    ];
    for (const [change, loc, type] of cases) {
      const response = await client.post(`/dc/sources?user_id=${ALICE}`, { ...base, ...change });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    }
    const wrongKind = await client.post(`/dc/sources?user_id=${ALICE}`, {
      ...base,
      store: 'sharepoint',
      config: { site_id: 's' },
    });
    expect(wrongKind.body.detail[0]).toMatchObject({ loc: ['body', 'connection_id'], type: 'value_error' });
    expect(
      (
        await client.post(`/dc/sources?user_id=${ALICE}`, {
          ...base,
          connection_id: '0190a0a0-0000-7000-8000-000000000000',
        })
      ).status,
    ).toBe(404);
  });
});

describe('Google Drive syncs', () => {
  let source: Source;
  let policyId: string;
  let notesId: string;

  beforeAll(async () => {
    drive.oauth.grant('unused', 'refresh-drive');
    const top = drive.addFolder('root', 'Company', 'company');
    policyId = drive.addFile(
      top,
      'policy.txt',
      MIME.text,
      'Employees receive twenty-five paid holidays each year.',
    );
    drive.addFile(
      top,
      'guide.docx',
      MIME.docx,
      await docxOf(['Onboarding guide: laptops are handed out on day one.']),
    );
    drive.addFile(
      top,
      'budget.xlsx',
      MIME.xlsx,
      await xlsxOf([
        ['Item', 'Cost'],
        ['Servers', 1200],
      ]),
    );
    drive.addFile(top, 'deck.pptx', MIME.pptx, await pptxOf(['Roadmap: launch the mobile app in May']));
    drive.addFile(top, 'page.html', MIME.html, '<h1>Security</h1><p>Always use hardware keys.</p>');
    notesId = drive.addFile(top, 'notes.md', MIME.markdown, '# Notes\nThe cafeteria opens at eight.');
    drive.addFile(top, 'Strategy', GOOGLE_DOC, 'Strategy memo: expand into Lisbon next spring.');
    const sub = drive.addFolder(top, 'Finance');
    drive.addFile(sub, 'invoice.pdf', MIME.pdf, pdfOf('Invoice 4711 is due in thirty days'));
    drive.addFile(top, 'huge.txt', MIME.text, 'x'.repeat(MAX_BYTES + 1));
    drive.addFile(top, 'broken.pdf', MIME.pdf, '%PDF-1.4 this is not really a pdf');
    drive.addFile(top, 'logo.png', 'image/png', Buffer.from([0x89, 0x50]));
    drive.pageSize = 4;
  });

  it('syncs a folder recursively: every format extracted, a Google Doc exported, an expired token refreshed, a 429 waited out', async () => {
    const connection = await driveConnection(
      'expired-access-token',
      'refresh-drive',
      new Date(Date.now() - 60000).toISOString(),
    );
    drive.throttleOnce(/^\/drive\/v3\/files$/, 1);
    const started = drive.requests.length;
    source = await driveSource(connection.id, 'company');
    driveSource1 = source;
    expect(Object.keys(source).sort()).toEqual(SOURCE_FIELDS);
    expect(source).toMatchObject({
      status: expect.stringMatching(/pending|syncing/),
      store: 'googledrive',
      scope: 'organization',
      created_by: ALICE,
      config: { folder_id: 'company', recursive: true },
      last_synced_at: null,
      archived_at: null,
    });
    expect(typeof source.id).toBe('number');

    const done = await waitForSource(source.pid, synced());
    source = done;
    expect(done).toMatchObject({
      status: 'synced',
      documents_synced: 8,
      documents_embedded: 8,
      documents_failed: 2,
      oversized_documents: 1,
    });
    expect(done.size).toBeGreaterThan(0);
    expect(done.embedded_size).toBeGreaterThan(0);

    expect(drive.oauth.refreshes).toBeGreaterThanOrEqual(1);
    expect(drive.requests.slice(started).some((r) => r.path === '/drive/v3/files/' + 'huge.txt')).toBe(false);
    const listings = drive.requests.slice(started).filter((r) => r.path === '/drive/v3/files');
    expect(listings[1].at - listings[0].at).toBeGreaterThanOrEqual(950);

    const documents = (await client.get(`/dc/sources/${source.pid}/documents`)).body as Record<string, any>[];
    const byName = new Map(documents.map((d) => [d.name, d]));
    expect(byName.get('Strategy')).toMatchObject({ status: 'indexed', passages: 1 });
    expect(byName.get('invoice.pdf')).toMatchObject({ status: 'indexed' });
    expect(byName.get('huge.txt')).toMatchObject({ status: 'oversized' });
    expect(byName.get('broken.pdf')).toMatchObject({ status: 'failed', error: expect.stringMatching(/pdf/) });
    expect(byName.get('logo.png')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/unsupported/),
    });
    const [exported] = await queryDatabase<{ text: string }>(
      environment.databaseUrl,
      `SELECT p.text FROM passages p JOIN documents d ON d.id = p.document_id WHERE d.name = 'Strategy'`,
    );
    expect(exported.text).toContain('expand into Lisbon');
  });

  it('syncs incrementally from the changes feed: one added, one changed, one deleted, nothing else fetched', async () => {
    const before = drive.requests.length;
    const addedId = drive.addFile(
      'company',
      'travel.txt',
      MIME.text,
      'Travel must be booked through the portal.',
    );
    drive.updateFile(policyId, 'Employees receive thirty paid holidays each year.');
    drive.deleteFile(notesId);
    expect((await client.post(`/dc/sources/${source.pid}/sync`)).status).toBe(202);
    const done = await waitForSource(source.pid, synced(source.last_synced_at));
    expect(done).toMatchObject({
      status: 'synced',
      documents_synced: 8,
      documents_failed: 2,
      oversized_documents: 1,
      documents_embedded: 8,
    });
    const requests = drive.requests.slice(before).map((r) => r.path);
    expect(requests).toContain('/drive/v3/changes');
    expect(requests).not.toContain('/drive/v3/files');
    const fetched = requests.filter((p) => p.startsWith('/drive/v3/files/'));
    expect(fetched.sort()).toEqual([`/drive/v3/files/${addedId}`, `/drive/v3/files/${policyId}`].sort());
    const names = ((await client.get(`/dc/sources/${source.pid}/documents`)).body as { name: string }[]).map(
      (d) => d.name,
    );
    expect(names).toContain('travel.txt');
    expect(names).not.toContain('notes.md');
    const [policy] = await queryDatabase<{ text: string }>(
      environment.databaseUrl,
      `SELECT p.text FROM passages p JOIN documents d ON d.id = p.document_id WHERE d.external_id = $1`,
      [policyId],
    );
    expect(policy.text).toContain('thirty paid holidays');
    source = done;
  });

  it('does not double a sync requested while one is queued or running', async () => {
    drive.downloadDelayMs = 400;
    drive.updateFile(policyId, 'Employees receive thirty-one paid holidays each year.');
    const before = drive.downloads(policyId);
    const responses = await Promise.all([1, 2, 3].map(() => client.post(`/dc/sources/${source.pid}/sync`)));
    expect(responses.map((r) => r.status)).toEqual([202, 202, 202]);
    await waitForSource(source.pid, synced(source.last_synced_at));
    drive.downloadDelayMs = 0;
    expect(drive.downloads(policyId) - before).toBe(1);
  });

  it('answers 404 for a source of another organization, and archives: out of the listing, 204', async () => {
    expect((await otherOrg.get(`/dc/sources/${source.pid}`)).status).toBe(404);
    expect((await otherOrg.post(`/dc/sources/${source.pid}/sync`)).status).toBe(404);
    const extra = await driveSource((await driveConnection('x', 'refresh-drive')).id, 'company');
    await waitForSource(extra.pid, synced());
    expect((await client.delete(`/dc/sources/${extra.pid}`)).status).toBe(204);
    const archived = (await client.get(`/dc/sources/${extra.pid}`)).body;
    expect(archived.archived_at).not.toBeNull();
    expect(((await client.get('/dc/sources')).body as Source[]).map((s) => s.pid)).not.toContain(extra.pid);
    expect((await client.post(`/dc/sources/${extra.pid}/sync`)).status).toBe(404);
  });

  it('resumes a sync whose worker was killed, with exact counters and nothing fetched twice but what was in flight', async () => {
    const folder = drive.addFolder('root', 'Archive', 'bulk');
    for (let i = 0; i < 24; i++)
      drive.addFile(folder, `memo-${i}.txt`, MIME.text, `Memo number ${i} about budgets.`);
    drive.downloadDelayMs = 250;
    const bulk = await driveSource(
      (await driveConnection('unused', 'refresh-drive', '2000-01-01T00:00:00Z')).id,
      'bulk',
    );
    const deadline = Date.now() + 20000;
    for (;;) {
      const [{ done }] = await queryDatabase<{ done: number }>(
        environment.databaseUrl,
        `SELECT count(*)::int AS done FROM documents WHERE source_id = $1 AND version IS NOT NULL`,
        [bulk.id],
      );
      if (done >= 4) break;
      if (Date.now() > deadline) throw new Error(`no progress:\n${worker.output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await worker.kill();
    const listingsAtKill = drive.requests.filter((r) => r.path === '/drive/v3/files').length;
    worker = await startWorker(environment.env, workerEnv);
    const done = await waitForSource(bulk.pid, synced());
    drive.downloadDelayMs = 0;
    expect(done).toMatchObject({
      status: 'synced',
      documents_synced: 24,
      documents_failed: 0,
      oversized_documents: 0,
      documents_embedded: 24,
    });
    expect(drive.requests.filter((r) => r.path === '/drive/v3/files').length).toBe(listingsAtKill);
    const downloads = drive.requests.filter((r) => /^\/drive\/v3\/files\/file/.test(r.path) && r.at >= 0);
    const memoDownloads = downloads.filter((r) =>
      [...drive.files.values()].some((f) => f.parents.includes('bulk') && r.path.endsWith(`/${f.id}`)),
    );
    expect(memoDownloads.length).toBeGreaterThanOrEqual(24);
    expect(memoDownloads.length).toBeLessThanOrEqual(24 + 4);
  });
});

describe('SharePoint syncs and revoked credentials', () => {
  it('syncs a folder of a site through the delta feed, incrementally the second time', async () => {
    graph.oauth.grant('graph-token', 'graph-refresh');
    graph.addItem('/Shared/Policies', 'remote.txt', MIME.text, 'Remote work is allowed two days a week.');
    graph.addItem('/Other', 'elsewhere.txt', MIME.text, 'Not in the folder.');
    const gone = graph.addItem('/Shared/Policies/2024', 'old.txt', MIME.text, 'Old policy.');
    const connection = (
      await client.post(`/dc/connections?user_id=${ALICE}`, {
        name: 'SharePoint',
        kind: 'sharepoint',
        credentials: { access_token: 'graph-token', refresh_token: 'graph-refresh' },
      })
    ).body;
    const source = (
      await client.post(`/dc/sources?user_id=${ALICE}`, {
        connection_id: connection.id,
        store: 'sharepoint',
        config: { site_id: 'contoso.sharepoint.com,1,2', folder_path: 'Shared/Policies' },
        scope: 'organization',
      })
    ).body;
    const first = await waitForSource(source.pid, synced());
    expect(first).toMatchObject({ status: 'synced', documents_synced: 2 });
    graph.deleteItem(gone);
    graph.addItem('/Shared/Policies', 'new.txt', MIME.text, 'New policy.');
    const before = graph.requests.length;
    await client.post(`/dc/sources/${source.pid}/sync`);
    const second = await waitForSource(source.pid, synced(first.last_synced_at));
    expect(second).toMatchObject({ status: 'synced', documents_synced: 2 });
    expect(graph.requests.slice(before).some((r) => r.includes('token=') && r.includes('/root/delta'))).toBe(
      true,
    );

    graph.oauth.revoke('graph-refresh');
    const checked = await client.post(`/dc/connections/${connection.id}/check`);
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ inoperative: true, status: 'error' });
    expect(checked.body.checked_at).not.toBeNull();
    const failed = (await client.get(`/dc/sources/${source.pid}`)).body;
    expect(failed.status).toBe('error');
    expect(failed.status_reason).toMatch(/inoperative.*invalid_grant/);
    expect(failed.connection.inoperative).toBe(true);
    expect((await client.delete(`/dc/connections/${connection.id}`)).status).toBe(409);
  });

  it('makes a connection inoperative when a sync finds its refresh refused', async () => {
    drive.oauth.grant('short-lived', 'to-be-revoked');
    const connection = await driveConnection(
      'short-lived',
      'to-be-revoked',
      new Date(Date.now() + 3600_000).toISOString(),
    );
    const source = await driveSource(connection.id, 'company');
    await waitForSource(source.pid, synced());
    drive.oauth.revoke('to-be-revoked');
    drive.addFile('company', 'later.txt', MIME.text, 'later');
    await client.post(`/dc/sources/${source.pid}/sync`);
    const failed = await waitForSource(source.pid, (s) => s.status === 'error');
    expect(failed.status_reason).toMatch(/Connection "Drive" is inoperative/);
    expect((await client.get(`/dc/connections/${connection.id}`)).body).toMatchObject({
      inoperative: true,
      status: 'error',
    });
  });
});

describe('drag-and-drop, visibility and company_documents', () => {
  let privateSource: Source;

  async function upload(name: string, body: string, userId: string): Promise<string> {
    const permission = await client.get(
      `/chat/files/upload?filename=${name}&mimetype=text/plain&user_id=${userId}`,
    );
    expect(permission.status).toBe(200);
    expect((await postUpload(permission.body, body, name)).status).toBe(204);
    return permission.body.fields['x-amz-meta-file-id'];
  }

  it('indexes uploaded files of the caller into a private source', async () => {
    const connection = (
      await client.post(`/dc/connections?user_id=${ALICE}`, { name: 'Uploads', kind: 'draganddrop' })
    ).body;
    privateSource = (
      await client.post(`/dc/sources?user_id=${ALICE}`, {
        connection_id: connection.id,
        store: 'draganddrop',
        config: {},
        scope: 'private',
      })
    ).body;
    expect(privateSource).toMatchObject({ status: 'pending', scope: 'private' });
    const fileId = await upload('salary.txt', 'Confidential: the salary review happens in March.', ALICE);
    const bobsFile = await upload('bob.txt', 'Bob file', BOB);
    const refused = await client.post(`/dc/sources/${privateSource.pid}/documents?user_id=${ALICE}`, {
      file_ids: [fileId, bobsFile],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'file_ids', 1] });
    const added = await client.post(`/dc/sources/${privateSource.pid}/documents?user_id=${ALICE}`, {
      file_ids: [fileId],
    });
    expect(added.status).toBe(202);
    expect(added.body).toEqual([expect.objectContaining({ name: 'salary.txt' })]);
    const done = await waitForSource(privateSource.pid, synced());
    expect(done).toMatchObject({ status: 'synced', documents_synced: 1, documents_embedded: 1 });
  });

  it('keeps a private source invisible to another end user and another organization', async () => {
    expect((await client.get(`/dc/sources/${privateSource.pid}?user_id=${BOB}`)).status).toBe(404);
    expect((await client.get(`/dc/sources/${privateSource.pid}`)).status).toBe(404);
    expect(
      ((await client.get(`/dc/sources?user_id=${BOB}`)).body as Source[]).map((s) => s.pid),
    ).not.toContain(privateSource.pid);
    expect(((await client.get(`/dc/sources?user_id=${ALICE}`)).body as Source[]).map((s) => s.pid)).toContain(
      privateSource.pid,
    );
    expect((await otherOrg.get(`/dc/sources/${privateSource.pid}?user_id=${ALICE}`)).status).toBe(404);
  });

  async function askTool(
    userId: string,
    args: Record<string, unknown>,
    message: Record<string, unknown> = {},
  ) {
    const agentId = (await createAgent(environment.env, org.org)).id;
    const started = await client.post('/chat', {
      message: { content: `/tool company_documents ${JSON.stringify(args)}`, ...message },
      options: { agent_id: agentId, user_id: userId },
    });
    expect(started.status).toBe(200);
    const deadline = Date.now() + 30000;
    for (;;) {
      const thread = (await client.get(`/chat/${started.body.id}?user_id=${userId}`)).body;
      const reply = thread.messages?.[1];
      if (reply && !reply.live) {
        expect(reply.status).toBe('success');
        return (reply.events as Record<string, any>[]).find((e) => e.type === 'tool.result')!;
      }
      if (Date.now() > deadline) throw new Error(`reply not done: ${JSON.stringify(thread)}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  it('finds a passage of a synced document for the builtin model, and respects source_ids and scope', async () => {
    const result = await askTool(ALICE, { query: 'salary review' });
    expect(result.is_error).toBe(false);
    const output = JSON.stringify(result.output);
    expect(output).toContain('salary review happens in March');
    expect(output).toContain(privateSource.pid);

    const forBob = JSON.stringify((await askTool(BOB, { query: 'salary review' })).output);
    expect(forBob).not.toContain('salary review happens in March');

    const drivePid = driveSource1;
    const limited = JSON.stringify(
      (await askTool(ALICE, { query: 'salary review holidays', top_k: 10 }, { source_ids: [drivePid.id] }))
        .output,
    );
    expect(limited).not.toContain(privateSource.pid);
    expect(limited).toContain(drivePid.pid);

    const disabled = await askTool(ALICE, { query: 'salary' }, { disabled_tools: ['company_documents'] });
    expect(disabled.is_error).toBe(true);
  });
});
