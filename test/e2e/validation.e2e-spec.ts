import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { queryDatabase } from '../support/test-environment';

/*
 * What a hostile or careless client can send, against a real gateway (issue #16 item 7, issue #19): every
 * answer is a 4xx in the spec's shape, nothing is half-written, and no log line carries what was sent. The
 * wording of every 422 is checked case by case in validation-conformance.e2e-spec.ts.
 */
describe('bad input', () => {
  // info: the level where request logs would show a body if one were logged.
  const deployment = useDeployment({ gatewayEnv: { LOG_LEVEL: 'info' }, agent: true });
  let client: ReturnType<typeof api>;
  let key: string;
  /** Put in every attack: it must never show up in the gateway's output. */
  const CANARY = 'canary-7f3a9c';
  const NUL = `${CANARY}\u0000`;
  const THREAD = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8b';

  beforeAll(() => {
    key = deployment.org.key;
    client = deployment.client(key);
  });

  const count = async (table: string) =>
    Number(
      (
        await queryDatabase<{ n: string }>(
          deployment.environment.databaseUrl,
          `SELECT count(*) AS n FROM ${table}`,
        )
      )[0].n,
    );

  describe('a NUL character in any text field', () => {
    const start = (patch: Record<string, unknown> = {}) => ({
      message: { content: 'hi' },
      options: { agent_id: deployment.agentId, user_id: 'alice' },
      ...patch,
    });
    const attacks: [string, () => Promise<{ status: number; body: any }>, (string | number)[]][] = [
      [
        'POST /chat content',
        () => client.post('/chat', start({ message: { content: NUL } })),
        ['body', 'message', 'content'],
      ],
      ['POST /chat name', () => client.post('/chat', start({ name: NUL })), ['body', 'name']],
      [
        'POST /chat user_id',
        () => client.post('/chat', start({ options: { agent_id: deployment.agentId, user_id: NUL } })),
        ['body', 'options', 'user_id'],
      ],
      [
        'POST /chat document id',
        () => client.post('/chat', start({ message: { content: 'x', document_ids: [NUL] } })),
        ['body', 'message', 'document_ids', 0],
      ],
      [
        'POST /chat/{id}',
        () => client.post(`/chat/${THREAD}`, { message: { content: NUL } }),
        ['body', 'message', 'content'],
      ],
      ['PUT /chat/{id}', () => client.put(`/chat/${THREAD}`, { name: NUL }), ['body', 'name']],
      ['GET /chat', () => client.get(`/chat?user_id=${encodeURIComponent(NUL)}`), ['query', 'user_id']],
      [
        'PUT /memory/file',
        () => client.put('/memory/file', { namespace: 'n', path: 'a', content: NUL, purpose: 'p' }),
        ['body', 'content'],
      ],
      [
        'GET /memory/file',
        () => client.get(`/memory/file?namespace=${encodeURIComponent(NUL)}&path=a`),
        ['query', 'namespace'],
      ],
      [
        'POST /dc/connections',
        () => client.post('/dc/connections?user_id=u', { name: NUL, kind: 'draganddrop' }),
        ['body', 'name'],
      ],
      [
        'POST /dc/sources config',
        () =>
          client.post('/dc/sources?user_id=u', {
            connection_id: THREAD,
            store: 'draganddrop',
            config: { k: NUL },
            scope: 'private',
          }),
        ['body', 'config'],
      ],
      [
        'POST /agent_execution/query_templates',
        () => client.post('/agent_execution/query_templates?user_id=u', { name: 'n', content: NUL }),
        ['body', 'content'],
      ],
      [
        'POST /agent_execution/query_templates metadata key',
        () =>
          client.post('/agent_execution/query_templates?user_id=u', {
            name: 'n',
            content: 'c',
            metadata: { [NUL]: 1 },
          }),
        ['body', 'metadata'],
      ],
      [
        'POST /skills content',
        () => client.post('/skills?user_id=u', { content: `---\nname: nul\ndescription: ${NUL}\n---\nx` }),
        ['body', 'content'],
      ],
      [
        'POST /skills file',
        async () => {
          const form = new FormData();
          form.append('file', new Blob([`---\nname: nul\ndescription: ${NUL}\n---\nx`]), 'SKILL.md');
          const response = await fetch(`${deployment.url}/skills?user_id=u`, {
            method: 'POST',
            headers: { 'x-service-token': key },
            body: form,
          });
          return { status: response.status, body: await response.json() };
        },
        ['body', 'file'],
      ],
      [
        'PUT /skills/{pid}',
        () => client.put('/skills/sk_1?user_id=u', { display_name: NUL }),
        ['body', 'display_name'],
      ],
      [
        'GET /chat/files/upload',
        () => client.get(`/chat/files/upload?filename=${encodeURIComponent(NUL)}&mimetype=text/plain`),
        ['query', 'filename'],
      ],
    ];

    it.each(attacks)('is a 422 value_error on %s', async (_route, attack, loc) => {
      const response = await attack();
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        expect.objectContaining({
          type: 'value_error',
          loc,
          msg: 'Value error, text must not contain the NUL character',
          ctx: { error: {} },
        }),
      ]);
    });

    it('stored nothing and logged none of it', async () => {
      expect(await count('threads')).toBe(0);
      expect(await count('memory_files')).toBe(0);
      expect(await count('connections')).toBe(0);
      expect(await count('query_templates')).toBe(0);
      expect(deployment.gateway.output).not.toContain(CANARY);
      expect(deployment.gateway.output).not.toMatch(/"level":50/);
    });
  });

  it('answers JSON nested 10,000 deep with 400, as FastAPI does, and keeps serving', async () => {
    const deep = `{"message": {"content": "${CANARY}"}, "options": ${'['.repeat(10000)}${']'.repeat(10000)}}`;
    const response = await client.post('/chat', deep);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: 'There was an error parsing the body' });
    const deepObject = `{"name": "n", "content": "c", "metadata": ${'{"a": '.repeat(10000)}1${'}'.repeat(10000)}}`;
    const template = await client.post('/agent_execution/query_templates?user_id=u', deepObject);
    expect(template.status).toBe(400);
    expect((await client.get('/chat?user_id=u')).status).toBe(200);
    expect(deployment.gateway.running).toBe(true);
  });

  it('answers a body that is not UTF-8 with 400', async () => {
    const response = await fetch(`${deployment.url}/chat`, {
      method: 'POST',
      headers: { 'x-service-token': key, 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: 'There was an error parsing the body' });
  });

  it('answers after= with 40 digits with a 422 at its bound', async () => {
    const forty = '1'.repeat(40);
    const response = await client.get(`/chat/messages/${THREAD}/stream?after=${forty}`);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [
        {
          type: 'less_than_equal',
          loc: ['query', 'after'],
          msg: `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}`,
          input: forty,
          ctx: { le: Number.MAX_SAFE_INTEGER },
        },
      ],
    });
  });

  describe('null where the field is not nullable', () => {
    it('refuses options.max_steps: null before writing the thread', async () => {
      const response = await client.post('/chat', {
        message: { content: CANARY },
        options: { agent_id: deployment.agentId, user_id: 'alice', max_steps: null },
      });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        {
          type: 'int_type',
          loc: ['body', 'options', 'max_steps'],
          msg: 'Input should be a valid integer',
          input: null,
        },
      ]);
      expect(await count('threads')).toBe(0);
      expect(await count('messages')).toBe(0);
    });

    it("refuses a template's scope: null on create and on update, leaving the row as it was", async () => {
      const created = await client.post('/agent_execution/query_templates?user_id=u', {
        name: 'n',
        content: 'c',
        scope: null,
      });
      expect(created.status).toBe(422);
      expect(created.body.detail).toEqual([
        {
          type: 'enum',
          loc: ['body', 'scope'],
          msg: "Input should be 'organization' or 'private'",
          input: null,
          ctx: { expected: "'organization' or 'private'" },
        },
      ]);
      expect(await count('query_templates')).toBe(0);

      const template = await client.post('/agent_execution/query_templates?user_id=u', {
        name: 'n',
        content: 'c',
      });
      expect(template.status).toBeLessThan(300);
      const updated = await client.put(`/agent_execution/query_templates/${template.body.id}?user_id=u`, {
        scope: null,
        name: null,
      });
      expect(updated.status).toBe(422);
      expect(updated.body.detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([
        ['body', 'name'],
        ['body', 'scope'],
      ]);
      const rows = await queryDatabase<{ name: string; scope: string }>(
        deployment.environment.databaseUrl,
        'SELECT name, scope FROM query_templates',
      );
      expect(rows).toEqual([{ name: 'n', scope: 'private' }]);
    });
  });

  it('answers a plain-text body and a form body as not an object, as FastAPI does (never 415)', async () => {
    for (const [type, body] of [
      ['text/plain', 'plain words'],
      ['application/x-www-form-urlencoded', 'a=1'],
    ]) {
      const answer = await client.post('/chat', body, { 'content-type': type });
      expect({ type, status: answer.status }).toEqual({ type, status: 422 });
      expect(answer.body.detail).toEqual([
        expect.objectContaining({ loc: ['body'], type: 'model_attributes_type', input: body }),
      ]);
      expect(answer.headers.get('x-request-id')).toBeTruthy();
    }
  });
});
