import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { Embedder } from '@app/knowledge';
import { PassageSearchRepository, SourceEntity } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';
import { addIndexedDocument, addUploadSource } from '../knowledge/indexed-sources';

/** The hand-written search statements, each on a real PostgreSQL (DocumentSearch's ranking is tested in knowledge). */
describe('PassageSearchRepository on PostgreSQL', () => {
  const database = useTestDatabase();
  let db: DataSource;
  let repository: PassageSearchRepository;
  const embedder = new Embedder(loadSettings({}));
  const orgId = randomUUID();
  let orgSource: SourceEntity;
  let privateSource: SourceEntity;
  let holidaysId: string;

  const addSource = (scope: 'organization' | 'private') => addUploadSource(db, orgId, scope, 'alice');
  const addDocument = (source: SourceEntity, name: string, text: string) =>
    addIndexedDocument(db, embedder, source, name, text);

  beforeAll(async () => {
    db = database.db;
    repository = new PassageSearchRepository(db);
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'a')`, [orgId]);
    orgSource = await addSource('organization');
    privateSource = await addSource('private');
    holidaysId = await addDocument(orgSource, 'holidays.txt', 'Employees receive twenty-five paid holidays.');
    await addDocument(orgSource, 'servers.txt', 'The database servers are patched every Tuesday night.');
    await addDocument(privateSource, 'salary.txt', 'The salary review happens in March.');
  });

  it('lists the sources a user may see: the organization ones and their own private ones', async () => {
    const ids = (rows: { id: number }[]) => rows.map((row) => row.id).sort();
    expect(ids(await repository.visibleSources(orgId, 'alice', null))).toEqual(
      [orgSource.id, privateSource.id].sort(),
    );
    expect(ids(await repository.visibleSources(orgId, 'bob', null))).toEqual([orgSource.id]);
    expect(ids(await repository.visibleSources(orgId, 'alice', [privateSource.id]))).toEqual([
      privateSource.id,
    ]);
  });

  it('ranks passages by full text in the source language, within the documents asked for', async () => {
    const [hit] = await repository.fullTextRanked([orgSource.id], null, 'holiday', ['english'], 100, 10);
    expect((await repository.passages([hit]))[0]).toMatchObject({
      document_id: holidaysId,
      document_name: 'holidays.txt',
      source_id: orgSource.id,
    });
    expect(
      await repository.fullTextRanked([orgSource.id], [randomUUID()], 'holiday', ['english'], 100, 10),
    ).toEqual([]);
  });

  it('counts passages with an embedding up to a bound, and returns their embeddings in binary', async () => {
    expect(await repository.countWithEmbedding([orgSource.id], null, 100)).toBe(2);
    expect(await repository.countWithEmbedding([orgSource.id], null, 1)).toBe(1);
    const rows = await repository.embeddings([orgSource.id], [holidaysId], null);
    expect(rows).toHaveLength(1);
    expect(Buffer.isBuffer(rows[0].embedding)).toBe(true);
    expect(rows[0].embedding.readInt32BE(0)).toBe(1);
  });

  it('finds pgvector installed exactly where the server offers it (the migration enables it there)', async () => {
    const [{ offered }] = (await db.query(
      `SELECT count(*)::int AS offered FROM pg_available_extensions WHERE name = 'vector'`,
    )) as { offered: number }[];
    expect(await repository.hasPgvector()).toBe(offered > 0);
  });
});
