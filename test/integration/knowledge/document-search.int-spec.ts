import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { DocumentSearch, Embedder } from '@app/knowledge';
import { PassageSearchRepository, SourceEntity, SourceRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';
import { addIndexedDocument, addUploadSource } from './indexed-sources';

describe('DocumentSearch on PostgreSQL', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let sources: SourceRepository;
  const embedder = new Embedder(loadSettings({}));
  const orgA = randomUUID();
  const orgB = randomUUID();
  let orgSource: SourceEntity;
  let privateSource: SourceEntity;
  let frenchSource: SourceEntity;
  let otherOrgSource: SourceEntity;
  let policyDocumentId: string;

  const addSource = (
    orgId: string,
    scope: 'organization' | 'private',
    createdBy: string,
    language?: string,
  ) => addUploadSource(db, orgId, scope, createdBy, language);

  async function addDocument(source: SourceEntity, name: string, text: string): Promise<string> {
    const documentId = await addIndexedDocument(db, embedder, source, name, text);
    await sources.recount(source.id);
    return documentId;
  }

  const searcher = (exactScanLimit: number) => {
    const search = new DocumentSearch(
      new PassageSearchRepository(db),
      embedder,
      loadSettings({ SEARCH_EXACT_SCAN_LIMIT: String(exactScanLimit) }),
    );
    return search;
  };

  beforeAll(async () => {
    db = database.db;
    sources = new SourceRepository(db);
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'a'), ($2, 'b')`, [orgA, orgB]);
    orgSource = await addSource(orgA, 'organization', 'alice');
    privateSource = await addSource(orgA, 'private', 'alice');
    frenchSource = await addSource(orgA, 'organization', 'alice', 'french');
    otherOrgSource = await addSource(orgB, 'organization', 'bob');
    policyDocumentId = await addDocument(
      orgSource,
      'holidays.txt',
      'Employees receive twenty-five paid holidays per year. Holidays must be requested early.',
    );
    await addDocument(orgSource, 'servers.txt', 'The database servers are patched every Tuesday night.');
    await addDocument(privateSource, 'salary.txt', 'Confidential: the salary review happens in March.');
    await addDocument(frenchSource, 'conges.txt', 'Les salariés prennent leurs congés payés en août.');
    await addDocument(otherOrgSource, 'other.txt', 'Holidays at the other company are unlimited.');
  });

  it('keeps exact counters for a source', async () => {
    const found = await sources.findById(orgSource.id);
    expect(found).toMatchObject({
      documentsSynced: 2,
      documentsEmbedded: 2,
      documentsFailed: 0,
      oversizedDocuments: 0,
    });
    expect(found?.size).toBeGreaterThan(100);
  });

  it.each([
    ['an exact vector scan', 100000],
    ['a vector re-ranking of full-text matches', 0],
  ])('finds a passage by stemmed words with %s', async (_label, limit) => {
    const hits = await searcher(limit).search({ orgId: orgA, userId: 'alice' }, 'how many holiday days', 3);
    expect(hits[0]).toMatchObject({
      document_id: policyDocumentId,
      document_name: 'holidays.txt',
      source_pid: orgSource.pid,
    });
    expect(hits[0].text).toContain('twenty-five paid holidays');
  });

  it('finds by word pieces alone through the vector ranking', async () => {
    const hits = await searcher(100000).search({ orgId: orgA, userId: 'alice' }, 'patching', 1);
    expect(hits[0]?.document_name).toBe('servers.txt');
  });

  it('stems each source in its own language', async () => {
    const hits = await searcher(0).search({ orgId: orgA, userId: 'alice' }, 'congé', 1);
    expect(hits[0]?.document_name).toBe('conges.txt');
  });

  it('shows a private source to its creator only, and nothing of another organization', async () => {
    const alice = await searcher(100000).search({ orgId: orgA, userId: 'alice' }, 'salary review', 10);
    expect(alice.map((h) => h.document_name)).toContain('salary.txt');
    const bob = await searcher(100000).search({ orgId: orgA, userId: 'bob' }, 'salary review', 10);
    expect(bob.map((h) => h.document_name)).not.toContain('salary.txt');
    const anyone = await searcher(100000).search(
      { orgId: orgA, userId: null },
      'holidays unlimited company',
      10,
    );
    expect(anyone.map((h) => h.document_name)).not.toContain('other.txt');
  });

  it('is limited to the given sources and documents', async () => {
    const onlyPrivate = await searcher(100000).search(
      { orgId: orgA, userId: 'alice', sourceIds: [privateSource.id] },
      'holidays',
      10,
    );
    expect(onlyPrivate.every((h) => h.source_pid === privateSource.pid)).toBe(true);
    const onlyServers = await searcher(0).search(
      { orgId: orgA, userId: 'alice', documentIds: [policyDocumentId] },
      'servers holidays',
      10,
    );
    expect(onlyServers.map((h) => h.document_id)).toEqual([policyDocumentId]);
    expect(
      await searcher(0).search({ orgId: orgA, userId: 'alice', documentIds: ['nope'] }, 'holidays', 5),
    ).toEqual([]);
  });

  it('leaves archived sources out', async () => {
    await sources.archive({ orgId: orgA }, frenchSource.id);
    expect(await searcher(0).search({ orgId: orgA, userId: 'alice' }, 'congé', 5)).toEqual([]);
  });

  it('answers the pgvector question from the database (absent here, present with the compose image)', async () => {
    const available =
      (await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).length > 0;
    const installed = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).length > 0;
    expect(installed).toBe(available);
  });
});
