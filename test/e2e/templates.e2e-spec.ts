import { useDeployment } from '../support/deployment';
import { api } from '../support/http';

const FIELDS = [
  'background_color',
  'content',
  'created_at',
  'created_by',
  'description',
  'icon_color',
  'icon_uri',
  'id',
  'metadata',
  'name',
  'organization_id',
  'scope',
  'updated_at',
  'updated_by',
];

describe('query templates', () => {
  const deployment = useDeployment();
  let client: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;
  let orgId: string;

  beforeAll(async () => {
    orgId = deployment.org.orgId;
    client = deployment.client();
    other = deployment.client((await deployment.createOrg()).key);
  });

  it('creates a template with the defaults of spec 4.7 and every field of 2.10', async () => {
    const created = await client.post('/agent_execution/query_templates?user_id=alice', {
      name: 'Weekly',
      content: 'Sum up {week}',
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(FIELDS);
    expect(created.body).toMatchObject({
      name: 'Weekly',
      content: 'Sum up {week}',
      description: '',
      icon_uri: '',
      icon_color: '',
      background_color: '',
      metadata: {},
      scope: 'private',
      created_by: 'alice',
      updated_by: 'alice',
      organization_id: orgId,
    });
    expect(created.body.created_at).toMatch(/Z$/);
  });

  it('takes user_id from the body too, and requires it on create', async () => {
    const fromBody = await client.post('/agent_execution/query_templates', {
      name: 'B',
      content: 'c',
      user_id: 'bob',
    });
    expect(fromBody.status).toBe(200);
    expect(fromBody.body.created_by).toBe('bob');
    const missing = await client.post('/agent_execution/query_templates', { name: 'B', content: 'c' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'missing' });
  });

  it('validates fields with the 422 shape', async () => {
    const response = await client.post('/agent_execution/query_templates?user_id=alice', {
      name: 'x'.repeat(201),
      scope: 'everyone',
      metadata: 'nope',
    });
    expect(response.status).toBe(422);
    const byField = Object.fromEntries(
      response.body.detail.map((item: { loc: string[] }) => [item.loc[1], item]),
    );
    expect(byField.name).toMatchObject({ type: 'string_too_long', ctx: { max_length: 200 } });
    expect(byField.content).toMatchObject({ type: 'missing', msg: 'Field required' });
    expect(byField.scope).toMatchObject({ type: 'enum', ctx: { expected: "'organization' or 'private'" } });
    expect(byField.metadata).toMatchObject({ type: 'dict_type' });
  });

  it('shows private templates to their creator only and organization ones to everyone', async () => {
    const secret = await client.post('/agent_execution/query_templates?user_id=carol', {
      name: 'mine',
      content: 'x',
    });
    const shared = await client.post('/agent_execution/query_templates?user_id=carol', {
      name: 'ours',
      content: 'y',
      scope: 'organization',
    });
    const carol = await client.get('/agent_execution/query_templates?user_id=carol');
    expect(carol.body.map((t: { id: string }) => t.id)).toEqual(
      expect.arrayContaining([secret.body.id, shared.body.id]),
    );
    const dave = await client.get('/agent_execution/query_templates?user_id=dave');
    const daveIds = dave.body.map((t: { id: string }) => t.id);
    expect(daveIds).toContain(shared.body.id);
    expect(daveIds).not.toContain(secret.body.id);
    expect((await client.get(`/agent_execution/query_templates/${secret.body.id}?user_id=dave`)).status).toBe(
      404,
    );
    expect(
      (await client.get(`/agent_execution/query_templates/${secret.body.id}?user_id=carol`)).status,
    ).toBe(200);
    expect((await other.get(`/agent_execution/query_templates/${shared.body.id}?user_id=carol`)).status).toBe(
      404,
    );
    expect((await other.get('/agent_execution/query_templates?user_id=carol')).body).toEqual([]);
  });

  it('lists newest first with paging', async () => {
    const ids: string[] = [];
    for (const name of ['p1', 'p2', 'p3']) {
      ids.push(
        (await client.post('/agent_execution/query_templates?user_id=erin', { name, content: name })).body.id,
      );
    }
    const page = await client.get('/agent_execution/query_templates?user_id=erin&limit=2');
    expect(page.body.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    const next = await client.get('/agent_execution/query_templates?user_id=erin&limit=2&offset=2');
    expect(next.body[0].id).toBe(ids[0]);
    const bad = await client.get('/agent_execution/query_templates?user_id=erin&limit=101');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });
  });

  it('updates partially and records who changed it', async () => {
    const created = await client.post('/agent_execution/query_templates?user_id=frank', {
      name: 'n',
      content: 'c',
      description: 'd',
      scope: 'organization',
    });
    const updated = await client.put(`/agent_execution/query_templates/${created.body.id}?user_id=gina`, {
      name: 'renamed',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'renamed',
      content: 'c',
      description: 'd',
      created_by: 'frank',
      updated_by: 'gina',
    });
    expect(new Date(updated.body.updated_at).getTime()).toBeGreaterThanOrEqual(
      new Date(created.body.updated_at).getTime(),
    );
    const refused = await client.put(`/agent_execution/query_templates/${created.body.id}?user_id=gina`, {
      content: 5,
    });
    expect(refused.status).toBe(422);
    expect((await client.get(`/agent_execution/query_templates/${created.body.id}`)).body.content).toBe('c');
  });

  it('deletes, then answers 404; a bad id is a 422 on the path', async () => {
    const created = await client.post('/agent_execution/query_templates?user_id=hank', {
      name: 'n',
      content: 'c',
    });
    expect(
      (await other.delete(`/agent_execution/query_templates/${created.body.id}?user_id=hank`)).status,
    ).toBe(404);
    expect(
      (await client.delete(`/agent_execution/query_templates/${created.body.id}?user_id=hank`)).status,
    ).toBe(204);
    expect(
      (await client.get(`/agent_execution/query_templates/${created.body.id}?user_id=hank`)).status,
    ).toBe(404);
    const bad = await client.get('/agent_execution/query_templates/not-a-uuid');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'id']);
  });
});
