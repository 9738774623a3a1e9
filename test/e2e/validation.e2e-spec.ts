import { createAgent, createOrg } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/** The 422 body of API-SPEC 2.13 / CONTRACTS §3 over HTTP, on POST /chat (body) and GET /chat (query). */
describe('validation errors (422)', () => {
  let environment: TestEnvironment;
  let gateway: AppProcess;
  let client: ReturnType<typeof api>;
  let agentId: string;

  const validStart = () => ({
    message: { content: 'hello' },
    options: { agent_id: agentId, user_id: 'alice' },
  });

  beforeAll(async () => {
    environment = await createTestEnvironment();
    gateway = await startGateway(environment.env);
    const org = await createOrg(environment.env);
    client = api(gateway.url!, org.key);
    agentId = (await createAgent(environment.env, org.org)).id;
  });

  afterAll(async () => {
    await gateway?.stop();
    await environment?.dispose();
  });

  describe('the body', () => {
    it('answers malformed JSON with json_invalid', async () => {
      const response = await client.post('/chat', '{"message": {"content": "hi"},');
      expect(response.status).toBe(422);
      expect(response.body.detail).toHaveLength(1);
      expect(response.body.detail[0]).toMatchObject({
        loc: ['body', 30],
        msg: 'JSON decode error',
        type: 'json_invalid',
      });
      expect(typeof response.body.detail[0].ctx.error).toBe('string');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    });

    it('answers a body that is not an object', async () => {
      for (const body of ['[1, 2]', '"text"', '42']) {
        const response = await client.post('/chat', body);
        expect(response.status).toBe(422);
        expect(response.body).toEqual({
          detail: [
            {
              loc: ['body'],
              msg: 'Input should be a valid dictionary or object to extract fields from',
              type: 'model_attributes_type',
              input: JSON.parse(body),
            },
          ],
        });
      }
    });

    it('answers an empty JSON body as missing', async () => {
      const response = await client.post('/chat', '');
      expect(response.status).toBe(422);
      expect(response.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
    });

    it('reports each missing required field at its place', async () => {
      const response = await client.post('/chat', { message: {}, options: { agent_id: agentId } });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        { loc: ['body', 'message', 'content'], msg: 'Field required', type: 'missing', input: null },
        { loc: ['body', 'options', 'user_id'], msg: 'Field required', type: 'missing', input: null },
      ]);
    });

    it('reports a too-long content with its limit', async () => {
      const content = 'x'.repeat(30001);
      const response = await client.post('/chat', { ...validStart(), message: { content } });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        {
          loc: ['body', 'message', 'content'],
          msg: 'String should have at most 30000 characters',
          type: 'string_too_long',
          input: content,
          ctx: { max_length: 30000 },
        },
      ]);
    });

    it('reports a wrong type and a bad list item at its index', async () => {
      const response = await client.post('/chat', {
        ...validStart(),
        name: 7,
        message: { content: 'hi', disabled_tools: ['web', 'shell'] },
      });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual(
        expect.arrayContaining([
          { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 7 },
          expect.objectContaining({
            loc: ['body', 'message', 'disabled_tools', 1],
            type: 'enum',
            input: 'shell',
          }),
        ]),
      );
      expect(response.body.detail).toHaveLength(2);
    });

    it('ignores unknown fields', async () => {
      const response = await client.post('/chat', { ...validStart(), surprise: true });
      expect(response.status).toBeLessThan(300);
      expect(response.body.id).toEqual(expect.any(String));
    });

    it('answers a plain-text body as not an object', async () => {
      const response = await client.post('/chat', 'plain words', { 'content-type': 'text/plain' });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        expect.objectContaining({ loc: ['body'], type: 'model_attributes_type', input: 'plain words' }),
      ]);
    });

    it('answers a body type it does not take with 415 {"detail": message}', async () => {
      const response = await client.post('/chat', 'a=1', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(response.status).toBe(415);
      expect(typeof response.body.detail).toBe('string');
    });
  });

  describe('query parameters', () => {
    it('requires user_id', async () => {
      const response = await client.get('/chat');
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        detail: [{ loc: ['query', 'user_id'], msg: 'Field required', type: 'missing', input: null }],
      });
    });

    it('reports an integer that does not parse, and one out of range', async () => {
      const notInt = await client.get('/chat?user_id=u&limit=many');
      expect(notInt.status).toBe(422);
      expect(notInt.body.detail).toEqual([
        {
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
          input: 'many',
        },
      ]);
      const tooBig = await client.get('/chat?user_id=u&limit=101');
      expect(tooBig.body.detail).toEqual([
        {
          loc: ['query', 'limit'],
          msg: 'Input should be less than or equal to 100',
          type: 'less_than_equal',
          input: 101,
          ctx: { le: 100 },
        },
      ]);
    });

    it('reports too many agent_ids', async () => {
      const ids = Array.from({ length: 11 }, (_, i) => `agent_ids=a${i}`).join('&');
      const response = await client.get(`/chat?user_id=u&${ids}`);
      expect(response.status).toBe(422);
      expect(response.body.detail[0]).toMatchObject({
        loc: ['query', 'agent_ids'],
        type: 'too_long',
        ctx: { max_length: 10, actual_length: 11 },
      });
    });

    it('accepts valid parameters', async () => {
      const response = await client.get('/chat?user_id=u&limit=5');
      expect(response.status).toBe(200);
    });
  });
});
