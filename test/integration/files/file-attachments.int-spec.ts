import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadSettings, Settings } from '@app/config';
import { InvalidInputError } from '@app/contracts';
import { ConversationFileRepository, newId, ShareLinkRepository } from '@app/persistence';
import { FileAttachments, storageKeyOf } from '@app/files';
import { LocalDiskDriver } from '@app/storage';
import { UntrustedParsing } from '@app/documents';
import { useTestDatabase } from '../../support/test-database';

/** The file-attachment surface other areas use (chat, data sources, the runtime), on PostgreSQL and local disk. */
describe('FileAttachments', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let dir: string;
  let files: ConversationFileRepository;
  let driver: LocalDiskDriver;
  let attachments: FileAttachments;
  let settings: Settings;
  const orgId = randomUUID();
  const otherOrgId = randomUUID();
  let messageId: string;

  /** A file as a client leaves it: the permission (pending row), then, if `body`, the bytes on the host. */
  async function addFile(
    org: string,
    userId: string | null,
    name: string,
    mimetype: string,
    body?: Buffer,
  ): Promise<string> {
    const id = newId();
    const storageKey = storageKeyOf(org, id);
    await files.createPending({ orgId: org, userId }, { id, name, mimetype, storageKey });
    if (body) await driver.store.write(storageKey, body, mimetype, { 'file-id': id });
    return id;
  }

  beforeAll(async () => {
    db = database.db;
    dir = await mkdtemp(join(tmpdir(), 'parley-attachments-'));
    settings = loadSettings({
      DATABASE_URL: database.environment.databaseUrl,
      STORAGE_DIR: dir,
      ATTACHMENT_TEXT_MAX_CHARS: '60',
      PUBLIC_BASE_URL: 'https://api.example.com',
    });
    await database.addOrganizations(orgId, otherOrgId);
    const agentId = randomUUID();
    const threadId = randomUUID();
    messageId = randomUUID();
    await db.query(`INSERT INTO agents (id, org_id, name) VALUES ($1, $2, 'a')`, [agentId, orgId]);
    await db.query(`INSERT INTO threads (id, org_id, agent_id, name) VALUES ($1, $2, $3, 't')`, [
      threadId,
      orgId,
      agentId,
    ]);
    await db.query(
      `INSERT INTO messages (id, thread_id, org_id, position, role, status, live) VALUES ($1, $2, $3, 1, 'assistant', 'success', false)`,
      [messageId, threadId, orgId],
    );
    files = new ConversationFileRepository(db);
    driver = new LocalDiskDriver({
      dir,
      publicUrl: 'http://127.0.0.1:1',
      signingSecret: 'file-attachments-test-secret',
    });
    attachments = new FileAttachments(
      files,
      new ShareLinkRepository(db),
      driver,
      settings,
      new UntrustedParsing(settings),
    );
  });

  // Runs after the database's afterAll, declared first: the database is dropped, then its files.
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('accepts uploaded files of the scope and records the size and type the storage host reports', async () => {
    const mine = await addFile(orgId, 'alice', 'a.txt', 'text/plain', Buffer.from('hello'));
    const shared = await addFile(orgId, null, 'b.csv', 'text/csv', Buffer.from('x,y\n'));
    const found = await attachments.requireUploaded({ orgId, userId: 'alice' }, [shared, mine]);
    expect(found.map((file) => [file.id, file.status, file.size])).toEqual([
      [shared, 'uploaded', 4],
      [mine, 'uploaded', 5],
    ]);
  });

  it('answers 422 at each bad index: unknown, not uploaded, another user, another organization', async () => {
    const good = await addFile(orgId, 'alice', 'ok.txt', 'text/plain', Buffer.from('ok'));
    const pending = await addFile(orgId, 'alice', 'later.txt', 'text/plain');
    const bobs = await addFile(orgId, 'bob', 'bob.txt', 'text/plain', Buffer.from('bob'));
    const foreign = await addFile(otherOrgId, 'alice', 'f.txt', 'text/plain', Buffer.from('f'));
    const ids = [good, randomUUID(), pending, bobs, foreign, 'not-a-uuid'];
    const failure = await attachments.requireUploaded({ orgId, userId: 'alice' }, ids).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(InvalidInputError);
    expect((failure as InvalidInputError).issues.map((issue) => issue.loc)).toEqual(
      [1, 2, 3, 4, 5].map((index) => ['body', 'message', 'file_ids', index]),
    );
    expect((failure as InvalidInputError).issues[1].msg).toContain('not been uploaded');
  });

  it('renders Message.files: attached user files in order, then the files the agent wrote', async () => {
    const first = await addFile(orgId, 'alice', 'one.txt', 'text/plain', Buffer.from('1'));
    const second = await addFile(orgId, 'alice', 'two.txt', 'text/plain', Buffer.from('22'));
    await attachments.requireUploaded({ orgId, userId: 'alice' }, [first, second]);
    // A file the agent wrote while answering messageId: its bytes stored, its row uploaded and tied to the message.
    const writtenId = newId();
    const writtenKey = storageKeyOf(orgId, writtenId);
    await driver.store.write(writtenKey, Buffer.from('{"a":1}'), 'application/json', {
      'file-id': writtenId,
    });
    await db.query(
      `INSERT INTO conversation_files
         (id, org_id, user_id, name, mimetype, size, storage_key, origin, status, message_id, uploaded_at)
       VALUES ($1, $2, 'alice', 'chart.json', 'application/json', 7, $3, 'agent', 'uploaded', $4, now())`,
      [writtenId, orgId, writtenKey, messageId],
    );
    const byMessage = await attachments.filesByMessage({ orgId }, [
      { id: randomUUID(), fileIds: [second, first] },
      { id: messageId, fileIds: [] },
    ]);
    const [userMessage, agentMessage] = [...byMessage.values()];
    expect(agentMessage[0]).toMatchObject({ origin: 'agent', size: 7, name: 'chart.json', share_links: [] });
    expect(userMessage.map((file) => [file.name, file.size, file.origin])).toEqual([
      ['two.txt', 2, 'user'],
      ['one.txt', 1, 'user'],
    ]);
    expect(Object.keys(userMessage[0]).sort()).toEqual(
      ['id', 'mimetype', 'name', 'origin', 'share_links', 'size', 'url'].sort(),
    );
    expect(userMessage[0].url).toMatch(/^http:\/\/127\.0\.0\.1:1\/files\/uploads\//);
    expect(agentMessage.map((file) => file.id)).toEqual([writtenId]);
  });

  it('gives the model the attached text within the budget, and names files it cannot read', async () => {
    const notes = await addFile(orgId, 'alice', 'notes.md', 'text/markdown', Buffer.from('# Plan\nShip it.'));
    const big = await addFile(orgId, 'alice', 'big.txt', 'text/plain', Buffer.from('x'.repeat(500)));
    const image = await addFile(orgId, 'alice', 'p.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await attachments.requireUploaded({ orgId, userId: 'alice' }, [notes, big, image]);
    const text = await attachments.attachmentTextForModel({ orgId, userId: 'alice' }, [notes, big, image]);
    expect(text).toContain('Attached file "notes.md" (text/markdown, 15 bytes):\n# Plan\nShip it.');
    expect(text).toContain(
      `Attached file "big.txt" (text/plain, 500 bytes):\n${'x'.repeat(45)}\n[… truncated]`,
    );
    expect(text).not.toContain('x'.repeat(46));
    expect(text).toContain('Attached file "p.png" (image/png, 4 bytes): not readable as text');
    const images = await attachments.imagesForModel({ orgId, userId: 'alice' }, [notes, image]);
    expect(images).toEqual([
      { name: 'p.png', mediaType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    ]);
  });
});
