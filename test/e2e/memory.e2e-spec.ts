import { useDeployment } from '../support/deployment';
import { api } from '../support/http';

const FILE_FIELDS = ['content', 'created_at', 'namespace', 'path', 'purpose', 'updated_at', 'version'];
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const fileQuery = (namespace: string, path: string) =>
  `namespace=${encodeURIComponent(namespace)}&path=${encodeURIComponent(path)}`;

describe('memory files', () => {
  const deployment = useDeployment({ workers: 1 });
  let client: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;

  beforeAll(async () => {
    client = deployment.client();
    other = deployment.client((await deployment.createOrg()).key);
  });

  it('creates, reads and updates a file with exactly the fields of spec 2.8', async () => {
    const created = await client.put('/memory/file', {
      namespace: 'crud',
      path: 'notes/a.md',
      content: 'first',
      purpose: 'test',
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(FILE_FIELDS);
    expect(created.body).toMatchObject({
      namespace: 'crud',
      path: 'notes/a.md',
      content: 'first',
      purpose: 'test',
    });
    expect(created.body.version).toMatch(ISO_DATE_TIME);
    expect(created.body.created_at).toMatch(ISO_DATE_TIME);

    const read = await client.get(`/memory/file?${fileQuery('crud', 'notes/a.md')}&user_id=someone`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const updated = await client.put('/memory/file', {
      namespace: 'crud',
      path: 'notes/a.md',
      content: 'second',
      purpose: 'test again',
      version: created.body.version,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      content: 'second',
      purpose: 'test again',
      created_at: created.body.created_at,
    });
    expect(updated.body.version).not.toBe(created.body.version);
    expect(updated.body.version > created.body.version).toBe(true);

    const again = await client.get(`/memory/file?${fileQuery('crud', 'notes/a.md')}`);
    expect(again.body).toEqual(updated.body);
  });

  it('answers 409 to a stale version and leaves the content unchanged', async () => {
    const base = { namespace: 'stale', path: 'a.md', purpose: 'p' };
    const created = await client.put('/memory/file', { ...base, content: 'v1' });
    const fresh = await client.put('/memory/file', { ...base, content: 'v2', version: created.body.version });
    expect(fresh.status).toBe(200);

    const stale = await client.put('/memory/file', {
      ...base,
      content: 'lost',
      version: created.body.version,
    });
    expect(stale.status).toBe(409);
    expect(typeof stale.body.detail).toBe('string');

    const read = await client.get(`/memory/file?${fileQuery('stale', 'a.md')}`);
    expect(read.body.content).toBe('v2');
    expect(read.body.version).toBe(fresh.body.version);
  });

  it('lets exactly one of several concurrent updates on the same version win', async () => {
    const base = { namespace: 'race', path: 'a.md', purpose: 'p' };
    const created = await client.put('/memory/file', { ...base, content: 'base' });
    const attempts = await Promise.all(
      ['w0', 'w1', 'w2', 'w3', 'w4'].map((content) =>
        client.put('/memory/file', { ...base, content, version: created.body.version }),
      ),
    );
    const winners = attempts.filter((attempt) => attempt.status === 200);
    expect(winners).toHaveLength(1);
    expect(attempts.filter((attempt) => attempt.status === 409)).toHaveLength(4);
    const read = await client.get(`/memory/file?${fileQuery('race', 'a.md')}`);
    expect(read.body).toEqual(winners[0].body);
  });

  it('answers 409 to a create over an existing file', async () => {
    const base = { namespace: 'twice', path: 'a.md', purpose: 'p' };
    expect((await client.put('/memory/file', { ...base, content: 'one' })).status).toBe(200);
    const second = await client.put('/memory/file', { ...base, content: 'two' });
    expect(second.status).toBe(409);
    expect((await client.get(`/memory/file?${fileQuery('twice', 'a.md')}`)).body.content).toBe('one');
  });

  it('keeps an empty content', async () => {
    const created = await client.put('/memory/file', {
      namespace: 'empty',
      path: 'e',
      content: '',
      purpose: '',
    });
    expect(created.status).toBe(200);
    expect((await client.get(`/memory/file?${fileQuery('empty', 'e')}`)).body.content).toBe('');
  });

  it('answers 404 for a missing file', async () => {
    const missing = await client.get(`/memory/file?${fileQuery('crud', 'nothing.md')}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Memory file not found' });
  });

  it('answers 400 Missing namespace, not 422, when the namespace is absent', async () => {
    const missing = await client.get('/memory/file?path=a.md');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ detail: 'Missing namespace' });
    // user_id never stands in for the namespace
    expect((await client.get('/memory/file?path=a.md&user_id=crud')).status).toBe(400);
    expect((await client.get('/memory/files')).status).toBe(400);
    expect((await client.put('/memory/file', { path: 'a.md', content: '', purpose: '' })).status).toBe(400);
  });

  it('accepts a namespace of 128 characters and refuses 129 with a 422', async () => {
    const ok = await client.get(`/memory/file?${fileQuery('n'.repeat(128), 'a.md')}`);
    expect(ok.status).toBe(404);

    const tooLong = await client.get(`/memory/file?${fileQuery('n'.repeat(129), 'a.md')}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail).toEqual([
      expect.objectContaining({
        loc: ['query', 'namespace'],
        type: 'string_too_long',
        ctx: { max_length: 128 },
      }),
    ]);
  });

  it.each([
    ['two folders', 'a/b/c.md'],
    ['..', '../a.md'],
    ['a lone ..', '..'],
    ['.', './a.md'],
    ['an empty segment', 'a//b'],
    ['a leading slash', '/a.md'],
    ['a trailing slash', 'a/'],
    ['a backslash', 'a\\b.md'],
    ['a control character', 'a\u0001b'],
  ])('refuses a path with %s (422 at query.path)', async (_what, path) => {
    const response = await client.get(`/memory/file?${fileQuery('crud', path)}`);
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      {
        loc: ['query', 'path'],
        type: 'value_error',
        msg:
          "Value error, a memory path is a name, or one folder and a name ('notes.md', 'projects/plan.md'): " +
          "no other slash, no empty part, '.' or '..', backslash or control character",
        input: path,
        ctx: { error: {} },
      },
    ]);
  });

  it('requires the path (422 missing)', async () => {
    const response = await client.get('/memory/file?namespace=crud');
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['query', 'path'], msg: 'Field required', type: 'missing', input: null },
    ]);
  });

  it('refuses a bad path on write at body.path and writes nothing', async () => {
    const response = await client.put('/memory/file', {
      namespace: 'crud',
      path: 'a/b/c.md',
      content: 'x',
      purpose: 'p',
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'path']);
  });

  it('refuses content past 256 KiB with a 422 string_too_long', async () => {
    const max = 256 * 1024;
    const atLimit = await client.put('/memory/file', {
      namespace: 'big',
      path: 'max.md',
      content: 'x'.repeat(max),
      purpose: 'p',
    });
    expect(atLimit.status).toBe(200);
    const over = await client.put('/memory/file', {
      namespace: 'big',
      path: 'over.md',
      content: 'x'.repeat(max + 1),
      purpose: 'p',
    });
    expect(over.status).toBe(422);
    expect(over.body.detail[0]).toMatchObject({
      loc: ['body', 'content'],
      type: 'string_too_long',
      ctx: { max_length: max },
    });
  });

  it('lists the files of a namespace or one folder, ordered by path and without content', async () => {
    for (const path of ['b.md', 'notes/z.md', 'notes/a.md', 'notesx/c.md', 'a.md']) {
      expect(
        (await client.put('/memory/file', { namespace: 'list', path, content: 'c', purpose: 'p' })).status,
      ).toBe(200);
    }
    const all = await client.get('/memory/files?namespace=list');
    expect(all.status).toBe(200);
    expect(all.body.map((file: { path: string }) => file.path)).toEqual([
      'a.md',
      'b.md',
      'notes/a.md',
      'notes/z.md',
      'notesx/c.md',
    ]);
    expect(Object.keys(all.body[0]).sort()).toEqual(FILE_FIELDS.filter((field) => field !== 'content'));

    const folder = await client.get('/memory/files?namespace=list&folder=notes');
    expect(folder.body.map((file: { path: string }) => file.path)).toEqual(['notes/a.md', 'notes/z.md']);

    expect((await client.get('/memory/files?namespace=list&folder=a/b')).status).toBe(422);
    expect((await client.get('/memory/files?namespace=nothing-here')).body).toEqual([]);
  });

  it('deletes a file (204), then answers 404 for it', async () => {
    const created = await client.put('/memory/file', {
      namespace: 'del',
      path: 'gone.md',
      content: 'c',
      purpose: 'p',
    });
    const deleted = await client.delete(`/memory/file?${fileQuery('del', 'gone.md')}`);
    expect(deleted.status).toBe(204);
    expect((await client.get(`/memory/file?${fileQuery('del', 'gone.md')}`)).status).toBe(404);
    expect((await client.delete(`/memory/file?${fileQuery('del', 'gone.md')}`)).status).toBe(404);
    // An update of a file deleted since it was read: 404, and nothing comes back to life.
    const update = await client.put('/memory/file', {
      namespace: 'del',
      path: 'gone.md',
      content: 'again',
      purpose: 'p',
      version: created.body.version,
    });
    expect(update.status).toBe(404);
    expect((await client.get(`/memory/file?${fileQuery('del', 'gone.md')}`)).status).toBe(404);
  });

  it('keeps two organizations apart even with the same namespace name', async () => {
    await client.put('/memory/file', {
      namespace: 'shared',
      path: 'secret.md',
      content: 'mine',
      purpose: 'p',
    });

    expect((await other.get(`/memory/file?${fileQuery('shared', 'secret.md')}`)).status).toBe(404);
    expect((await other.get('/memory/files?namespace=shared')).body).toEqual([]);
    expect((await other.delete(`/memory/file?${fileQuery('shared', 'secret.md')}`)).status).toBe(404);

    // The other organization's file of the same name is its own.
    const theirs = await other.put('/memory/file', {
      namespace: 'shared',
      path: 'secret.md',
      content: 'theirs',
      purpose: 'p',
    });
    expect(theirs.status).toBe(200);
    expect((await client.get(`/memory/file?${fileQuery('shared', 'secret.md')}`)).body.content).toBe('mine');
    expect((await other.get(`/memory/file?${fileQuery('shared', 'secret.md')}`)).body.content).toBe('theirs');
  });

  describe('agent tools', () => {
    interface ToolResult {
      type: string;
      name: string;
      output: unknown;
      is_error: boolean;
    }

    /** Starts a thread with one message and waits until its reply is done; answers the reply. */
    async function reply(agentId: string, content: string, memoryNamespace?: string) {
      const started = await client.post('/chat', {
        message: { content },
        options: {
          agent_id: agentId,
          user_id: 'alice',
          ...(memoryNamespace === undefined ? {} : { memory_namespace: memoryNamespace }),
        },
      });
      expect(started.status).toBe(200);
      const deadline = Date.now() + 30000;
      for (;;) {
        const thread = await client.get(`/chat/${started.body.id}?user_id=alice`);
        const answer = thread.body.messages?.at(-1);
        if (answer?.role === 'assistant' && !answer.live) return answer;
        if (Date.now() > deadline) throw new Error(`reply not done in time: ${JSON.stringify(thread.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    const toolResults = (message: { events: Record<string, unknown>[] | null }) =>
      (message.events ?? []).filter((event) => event.type === 'tool.result') as unknown as ToolResult[];

    const writeDirective = (path: string, content: string) =>
      `/tool memory_write ${JSON.stringify({ path, content, purpose: 'test' })}`;

    it("writes with memory_write into the agent's namespace when the thread names none; the API and memory_read read it", async () => {
      const agent = await deployment.createAgent(['--memory-namespace', 'agent-one']);
      const written = await reply(agent.id, writeDirective('notes/a.md', 'hi'));
      expect(written.status).toBe('success');
      expect(toolResults(written)).toEqual([
        expect.objectContaining({ name: 'memory_write', is_error: false }),
      ]);

      const file = await client.get(`/memory/file?${fileQuery('agent-one', 'notes/a.md')}`);
      expect(file.status).toBe(200);
      expect(file.body).toMatchObject({ content: 'hi', purpose: 'test', namespace: 'agent-one' });

      const read = await reply(agent.id, '/tool memory_read {"path":"notes/a.md"}');
      expect(toolResults(read)).toEqual([
        expect.objectContaining({
          name: 'memory_read',
          is_error: false,
          output: expect.objectContaining({ content: 'hi' }),
        }),
      ]);
    });

    it("uses the thread's memory_namespace and leaves the agent's own namespace untouched", async () => {
      const agent = await deployment.createAgent(['--memory-namespace', 'agent-two']);
      const written = await reply(agent.id, writeDirective('t.md', 'from thread'), 'thread-two');
      expect(toolResults(written)[0]).toMatchObject({ name: 'memory_write', is_error: false });

      const file = await client.get(`/memory/file?${fileQuery('thread-two', 't.md')}`);
      expect(file.body).toMatchObject({ content: 'from thread', namespace: 'thread-two' });
      expect((await client.get('/memory/files?namespace=agent-two')).body).toEqual([]);
    });

    it('lets two runs write one file at once: both writes land, one after the other', async () => {
      const agent = await deployment.createAgent(['--memory-namespace', 'agent-race']);
      const answers = await Promise.all(
        ['one', 'two', 'three'].map((content) => reply(agent.id, writeDirective('race.md', content))),
      );
      const results = answers.map((answer) => toolResults(answer)[0]);
      expect(results.every((result) => result.name === 'memory_write' && !result.is_error)).toBe(true);
      const versions = results.map((result) => (result.output as { version: string }).version);
      expect(new Set(versions).size).toBe(3);
      const file = await client.get(`/memory/file?${fileQuery('agent-race', 'race.md')}`);
      // The stored file is the one of the last version handed out.
      expect(file.body.version).toBe([...versions].sort().at(-1));
      expect(['one', 'two', 'three']).toContain(file.body.content);
    });

    it("keeps a run inside its own organization's namespace", async () => {
      const agent = await deployment.createAgent(['--memory-namespace', 'org-scoped']);
      await reply(agent.id, writeDirective('o.md', 'ours'));
      expect((await other.get(`/memory/file?${fileQuery('org-scoped', 'o.md')}`)).status).toBe(404);
      expect((await client.get(`/memory/file?${fileQuery('org-scoped', 'o.md')}`)).body.content).toBe('ours');
    });

    it('gives a run on an agent without a namespace no memory tools', async () => {
      const agent = await deployment.createAgent();
      const answer = await reply(agent.id, writeDirective('n.md', 'nowhere'));
      const [result] = toolResults(answer);
      expect(result).toMatchObject({ name: 'memory_write', is_error: true });
      expect(JSON.stringify(result.output)).toMatch(/not available/i);
    });
  });
});
