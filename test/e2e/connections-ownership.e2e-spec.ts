import { useDeployment } from '../support/deployment';
import { api } from '../support/http';

/**
 * A connection is its maker's (CONTRACTS §2 and §9): another end user of the same organization neither sees,
 * checks nor deletes it, and cannot build a source on it to read the maker's Drive through their token.
 */
const ALICE = 'alice';
const BOB = 'bob';
const deployment = useDeployment();
let client: ReturnType<typeof api>;
let drive: { id: string };
let uploads: { id: string };

beforeAll(async () => {
  client = deployment.client();
  drive = (
    await client.post(`/dc/connections?user_id=${ALICE}`, {
      name: "Alice's Drive",
      kind: 'googledrive',
      credentials: { access_token: 'alice-token', refresh_token: 'alice-refresh' },
    })
  ).body;
  uploads = (
    await client.post(`/dc/connections?user_id=${ALICE}`, { name: 'Alice uploads', kind: 'draganddrop' })
  ).body;
});

describe("another end user of the organization and Alice's connection", () => {
  it('does not see it: list and get answer as if it did not exist', async () => {
    expect((await client.get(`/dc/connections?user_id=${BOB}`)).body).toEqual([]);
    const got = await client.get(`/dc/connections/${drive.id}?user_id=${BOB}`);
    expect(got).toMatchObject({ status: 404, body: { detail: 'Connection not found' } });
  });

  it('cannot check or delete it', async () => {
    const checked = await client.post(`/dc/connections/${uploads.id}/check?user_id=${BOB}`);
    expect(checked).toMatchObject({ status: 404, body: { detail: 'Connection not found' } });
    const deleted = await client.delete(`/dc/connections/${drive.id}?user_id=${BOB}`);
    expect(deleted).toMatchObject({ status: 404, body: { detail: 'Connection not found' } });
    expect((await client.get(`/dc/connections/${drive.id}?user_id=${ALICE}`)).status).toBe(200);
  });

  it('cannot build a source on it, organization-wide or private', async () => {
    for (const scope of ['organization', 'private']) {
      const made = await client.post(`/dc/sources?user_id=${BOB}`, {
        connection_id: drive.id,
        store: 'googledrive',
        config: { folder_id: 'alice-folder' },
        scope,
      });
      expect(made).toMatchObject({ status: 404, body: { detail: 'Connection not found' } });
    }
    expect((await client.get(`/dc/sources?user_id=${BOB}`)).body).toEqual([]);
  });

  it("cannot move a source of the organization onto Alice's connection", async () => {
    const bobs = (
      await client.post(`/dc/connections?user_id=${BOB}`, { name: 'Bob uploads', kind: 'draganddrop' })
    ).body;
    const source = (
      await client.post(`/dc/sources?user_id=${BOB}`, {
        connection_id: bobs.id,
        store: 'draganddrop',
        config: {},
        scope: 'organization',
      })
    ).body;
    const moved = await client.put(`/dc/sources/${source.pid}?user_id=${BOB}`, { connection_id: uploads.id });
    expect(moved).toMatchObject({ status: 404, body: { detail: 'Connection not found' } });
    const anonymous = await client.put(`/dc/sources/${source.pid}`, { connection_id: uploads.id });
    expect(anonymous.status).toBe(422);
    expect(anonymous.body.detail[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'missing' });
  });
});

describe('Alice herself', () => {
  it('sees, checks and builds an organization-wide source on her connection, by her explicit choice', async () => {
    const listed = (await client.get(`/dc/connections?user_id=${ALICE}`)).body as { id: string }[];
    expect(listed.map((connection) => connection.id).sort()).toEqual([drive.id, uploads.id].sort());
    expect((await client.post(`/dc/connections/${uploads.id}/check?user_id=${ALICE}`)).status).toBe(200);
    const shared = await client.post(`/dc/sources?user_id=${ALICE}`, {
      connection_id: uploads.id,
      store: 'draganddrop',
      config: {},
      scope: 'organization',
    });
    expect(shared.status).toBe(200);
    // The organization's members see the source (its documents), never the connection behind it.
    expect((await client.get(`/dc/sources/${shared.body.pid}?user_id=${BOB}`)).status).toBe(200);
    expect((await client.get(`/dc/connections/${uploads.id}?user_id=${BOB}`)).status).toBe(404);
  });
});
