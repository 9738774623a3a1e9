import { useDeployment } from '../support/deployment';
import { api } from '../support/http';

const INTERNAL_TOKEN = 'internal-token-for-tests-0123456789';
const SKILL_FIELDS = [
  'active',
  'created_at',
  'display_name',
  'frontmatter',
  'id',
  'scope',
  'source',
  'updated_at',
];

const skillMd = (name: string, extra = '') =>
  `---\nname: ${name}\ndescription: Does ${name} things\nlicense: MIT\nallowed-tools: clock web\n${extra}---\n# ${name}\nStep one.\n`;

describe('skills', () => {
  const deployment = useDeployment({ env: { INTERNAL_TOKEN } });
  let client: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;
  let token: string;

  beforeAll(async () => {
    token = deployment.org.key;
    client = deployment.client();
    other = deployment.client((await deployment.createOrg()).key);
  });

  it('creates a custom skill from JSON content, with the fields of spec 2.11', async () => {
    const created = await client.post('/skills?user_id=alice', { content: skillMd('release-notes') });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual([...SKILL_FIELDS, 'content'].sort());
    expect(created.body).toMatchObject({
      display_name: 'release-notes',
      source: 'custom',
      active: true,
      scope: 'private',
      frontmatter: {
        name: 'release-notes',
        description: 'Does release-notes things',
        license: 'MIT',
        allowed_tools: ['clock', 'web'],
      },
    });
    const fetched = await client.get(`/skills/${created.body.id}?user_id=alice`);
    expect(fetched.body.content).toBe(skillMd('release-notes'));
  });

  it('creates a skill from a multipart file', async () => {
    const form = new FormData();
    form.append('user_id', 'alice');
    form.append('file', new Blob([skillMd('from-upload')], { type: 'text/markdown' }), 'SKILL.md');
    const response = await fetch(`${deployment.url}/skills`, {
      method: 'POST',
      headers: { 'x-service-token': token },
      body: form,
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { frontmatter: { name: string } }).frontmatter.name).toBe(
      'from-upload',
    );
  });

  it('refuses a frontmatter without name or description, or with a bad name (422)', async () => {
    const noName = await client.post('/skills?user_id=alice', { content: '---\ndescription: x\n---\nbody' });
    expect(noName.status).toBe(422);
    expect(noName.body.detail[0]).toMatchObject({
      loc: ['body', 'content', 'frontmatter', 'name'],
      type: 'missing',
    });
    const badName = await client.post('/skills?user_id=alice', { content: skillMd('Bad Name') });
    expect(badName.status).toBe(422);
    expect(badName.body.detail[0].type).toBe('string_pattern_mismatch');
    const missing = await client.post('/skills?user_id=alice', {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'content']);
    const noUser = await client.post('/skills', { content: skillMd('no-user') });
    expect(noUser.status).toBe(422);
    expect(noUser.body.detail[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'missing' });
  });

  it('refuses a second skill of the same name (409)', async () => {
    await client.post('/skills?user_id=bob', { content: skillMd('dup-skill') });
    expect((await client.post('/skills?user_id=bob', { content: skillMd('dup-skill') })).status).toBe(409);
  });

  it('lists the platform skills and hides private skills of another end user or organization', async () => {
    const mine = await client.post('/skills?user_id=carol', { content: skillMd('carol-only') });
    const carol = await client.get('/skills?user_id=carol');
    const names = carol.body.map((skill: { frontmatter: { name: string } }) => skill.frontmatter.name);
    expect(names).toEqual(expect.arrayContaining(['concise-answers', 'memory-notes', 'carol-only']));
    expect(carol.body.find((s: { source: string }) => s.source === 'parley').id).toMatch(/^parley-/);
    const dave = await client.get('/skills?user_id=dave');
    expect(dave.body.map((s: { id: string }) => s.id)).not.toContain(mine.body.id);
    expect((await client.get(`/skills/${mine.body.id}?user_id=dave`)).status).toBe(404);
    expect((await other.get(`/skills/${mine.body.id}?user_id=carol`)).status).toBe(404);
    await client.put(`/skills/${mine.body.id}?user_id=carol`, { scope: 'organization' });
    expect((await client.get(`/skills/${mine.body.id}?user_id=dave`)).status).toBe(200);
  });

  it('updates as spec 4.8: every field optional, null leaves it as it is', async () => {
    const created = await client.post('/skills?user_id=erin', { content: skillMd('erin-skill') });
    const renamed = await client.put(`/skills/${created.body.id}?user_id=erin`, {
      display_name: 'Erin’s skill',
      active: false,
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ display_name: 'Erin’s skill', active: false, scope: 'private' });
    expect(Object.keys(renamed.body).sort()).toEqual(SKILL_FIELDS);
    const nulls = await client.put(`/skills/${created.body.id}?user_id=erin`, {
      display_name: null,
      active: null,
      scope: null,
    });
    expect(nulls.body).toMatchObject({ display_name: 'Erin’s skill', active: false, scope: 'private' });
    const bad = await client.put(`/skills/${created.body.id}?user_id=erin`, {
      scope: 'world',
      active: 'maybe',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((item: { loc: string[] }) => item.loc[1]).sort()).toEqual(['active', 'scope']);
  });

  it('refuses content on PUT (the SKILL.md is fixed) and keeps updated_at when nothing changes', async () => {
    const created = await client.post('/skills?user_id=hank', { content: skillMd('hank-skill') });
    const path = `/skills/${created.body.id}?user_id=hank`;
    const changed = await client.put(path, {
      content: skillMd('hank-skill', 'compatibility: v2\n'),
      active: false,
    });
    expect(changed.status).toBe(422);
    expect(changed.body.detail).toEqual([
      {
        type: 'extra_forbidden',
        loc: ['body', 'content'],
        msg: 'Extra inputs are not permitted',
        input: skillMd('hank-skill', 'compatibility: v2\n'),
      },
    ]);
    const unchanged = await client.get(path);
    expect(unchanged.body).toEqual({ ...created.body });
    const same = await client.put(path, { display_name: created.body.display_name, active: true, other: 1 });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(created.body.updated_at);
    const renamed = await client.put(path, { display_name: 'Hank' });
    expect(renamed.body.updated_at > created.body.updated_at).toBe(true);
  });

  it('lets an organization switch a platform skill off, but not rename it without the internal token', async () => {
    const id = 'parley-concise-answers';
    const off = await client.put(`/skills/${id}?user_id=frank`, { active: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ source: 'parley', active: false });
    expect((await other.get(`/skills/${id}`)).body.active).toBe(true);
    expect((await client.put(`/skills/${id}`, { display_name: 'Short' })).status).toBe(403);
    expect(
      (await client.put(`/skills/${id}`, { display_name: 'Short' }, { 'x-internal-token': 'wrong' })).status,
    ).toBe(403);
    const renamed = await client.put(
      `/skills/${id}`,
      { display_name: 'Short answers' },
      { 'x-internal-token': INTERNAL_TOKEN },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body.display_name).toBe('Short answers');
    expect((await client.delete(`/skills/${id}`)).status).toBe(403);
  });

  it('deletes a custom skill', async () => {
    const created = await client.post('/skills?user_id=gina', { content: skillMd('gone-soon') });
    expect((await client.delete(`/skills/${created.body.id}?user_id=gina`)).status).toBe(204);
    expect((await client.get(`/skills/${created.body.id}?user_id=gina`)).status).toBe(404);
  });
});
