import { DataSource } from 'typeorm';
import { Embedder, splitPassages } from '@app/knowledge';
import { ConnectionRepository, DocumentRepository, SourceEntity, SourceRepository } from '@app/persistence';

/** A source of uploads (`draganddrop`) on a connection of its own, as the files of a thread make one. */
export async function addUploadSource(
  db: DataSource,
  orgId: string,
  scope: 'organization' | 'private',
  createdBy: string,
  language = 'english',
): Promise<SourceEntity> {
  const connection = await new ConnectionRepository(db).create(
    { orgId },
    {
      name: 'uploads',
      kind: 'draganddrop',
      createdBy,
      credentialsEncrypted: null,
      expiresAt: null,
    },
  );
  return new SourceRepository(db).create(
    { orgId },
    {
      connectionId: connection.id,
      name: `${scope} source`,
      scope,
      createdBy,
      store: 'draganddrop',
      config: {},
      language,
    },
  );
}

/** A text document of `source`, listed, fetched and indexed with `embedder`'s vectors as a sync does; answers its id. */
export async function addIndexedDocument(
  db: DataSource,
  embedder: Embedder,
  source: SourceEntity,
  name: string,
  text: string,
): Promise<string> {
  const documents = new DocumentRepository(db);
  await documents.upsertListed(
    source,
    [{ externalId: name, name, mimeType: 'text/plain', size: text.length, version: '1' }],
    1,
  );
  const [document] = await documents.toFetch(source.id, 10);
  const passages = splitPassages(text);
  const vectors = await embedder.embed(passages.map((p) => p.text));
  await documents.saveOutcome(document, source.language, {
    status: 'indexed',
    error: null,
    size: text.length,
    embeddedSize: text.length,
    embedded: true,
    passages: passages.map((p, i) => ({ ...p, embedding: vectors[i] })),
  });
  return document.id;
}
