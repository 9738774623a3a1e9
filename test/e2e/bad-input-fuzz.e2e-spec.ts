import { useDeployment } from '../support/deployment';
import { fillPath, Operation, openApiDocument, operationsOf, sampleOf } from '../support/openapi-walk';
import { queryDatabase } from '../support/test-environment';

/*
 * Bad input is a clear 4xx at every route, never a 500 nor PostgreSQL's words (issue #44). Every operation of
 * /openapi.json is sent a NUL character in every string it takes (body, query, path) and, with otherwise
 * plausible values, integers past PostgreSQL's `integer` and `bigint` ranges. A route added later is walked too.
 * Then the cases the issue found, each in its protocol's own error shape.
 */

/** What a database error's message gives away; none of it may reach a caller. */
const DATABASE_WORDS =
  /postgres|violates|invalid byte sequence|unsupported Unicode|out of range|QueryFailed|relation "|syntax error at|column "|\bSQL\b|22P05|22003|22021/i;
const NUL = 'fuzz\u0000';
const HUGE = [2147483648, 1e15, 1e20];
const SOME_ID = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8b';

// No worker: nothing here may start a reply, and the rate limit would cut the walk short.
const deployment = useDeployment({ gatewayEnv: { RATE_LIMIT_PER_MINUTE: '0' }, agent: true });
let document: Record<string, any>;
let operations: Operation[];

beforeAll(async () => {
  document = await openApiDocument(deployment.url);
  operations = operationsOf(document);
});

interface Answer {
  status: number;
  text: string;
  body: any;
}

async function send(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${deployment.url}${path}`, {
    method,
    headers: {
      'x-service-token': deployment.org.key,
      accept: 'application/json, text/event-stream',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  // The MCP transport answers a request as server-sent events: its one `data:` line is the JSON-RPC answer.
  const json = text.match(/^data: (.*)$/m)?.[1] ?? text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, body: parsed };
}

/** A plausible value for a leaf, so that a huge integer is what a request fails on, if anything. */
function plausible(schema: Record<string, any>, name: string, integer: number): unknown {
  if (schema.type === 'integer' || schema.type === 'number') return integer;
  if (schema.type === 'boolean') return false;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (name === 'agent_id' || name === 'model') return deployment.agentId;
  if (name === 'user_id' || name === 'user') return 'fuzz-user';
  return 'x';
}

const nulLeaf = (schema: Record<string, any>) =>
  schema.type === 'integer' || schema.type === 'number' ? 1 : schema.type === 'boolean' ? true : NUL;

function query(operation: Operation, value: (schema: Record<string, any>, name: string) => unknown): string {
  const entries = operation.queryParams.map(({ name, schema }): [string, string] => [
    name,
    String(value(schema ?? {}, name)),
  ]);
  return entries.length > 0 ? `?${new URLSearchParams(entries).toString()}` : '';
}

/** What is wrong with an answer, or null: a 5xx, or a database's words in it. */
function problemOf(answer: Answer): string | null {
  if (answer.status >= 500) return `${answer.status} ${answer.text.slice(0, 200)}`;
  if (DATABASE_WORDS.test(answer.text)) return `database words: ${answer.text.slice(0, 200)}`;
  return null;
}

it('answers a NUL in any string of any operation (body, query, path) without a 5xx or a database error', async () => {
  const problems: string[] = [];
  for (const operation of operations) {
    const path = fillPath(operation, () => NUL) + query(operation, nulLeaf);
    const body = operation.jsonBody ? sampleOf(document, operation.jsonBody, nulLeaf) : undefined;
    const answer = await send(operation.method, path, body);
    const problem = problemOf(answer);
    if (problem) problems.push(`${operation.name}: ${problem}`);
  }
  expect(problems).toEqual([]);
});

it('answers integers past PostgreSQL ranges in any body without a 5xx or a database error', async () => {
  const problems: string[] = [];
  const withIntegers = operations.filter(
    (operation) =>
      operation.jsonBody && /"type":"(integer|number)"/.test(JSON.stringify(resolveAll(operation))),
  );
  expect(withIntegers.map((operation) => operation.name)).toEqual(
    expect.arrayContaining(['POST /chat', 'PUT /budgets/users/{user_id}', 'POST /openai/v1/responses']),
  );
  for (const operation of withIntegers) {
    for (const integer of HUGE) {
      const body = sampleOf(document, operation.jsonBody, (schema, name) => plausible(schema, name, integer));
      const answer = await send(
        operation.method,
        fillPath(operation, () => SOME_ID),
        body,
      );
      const problem = problemOf(answer);
      if (problem) problems.push(`${operation.name} with ${integer}: ${problem}`);
    }
  }
  expect(problems).toEqual([]);
});

/** The body schema with its references inlined (for a look at its leaf types). */
function resolveAll(operation: Operation): unknown {
  return sampleOf(document, operation.jsonBody, (schema) => ({ type: schema.type }));
}

describe('the cases of issue #44, each in its protocol’s error shape', () => {
  it('POST /chat refuses max_steps 2^31 with a 422 at its bound', async () => {
    const answer = await send('POST', '/chat', {
      message: { content: 'hi' },
      options: { agent_id: deployment.agentId, user_id: 'u', max_steps: 2147483648 },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      expect.objectContaining({
        type: 'less_than_equal',
        loc: ['body', 'options', 'max_steps'],
        ctx: { le: 2147483647 },
      }),
    ]);
  });

  it('PUT /budgets/users/{id} refuses 1e20 tokens with a 422 at its bound, storing nothing', async () => {
    const answer = await send('PUT', '/budgets/users/u', { period: 'day', max_tokens: 1e20 });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([
      expect.objectContaining({ type: 'less_than_equal', loc: ['body', 'max_tokens'] }),
    ]);
    const rows = await queryDatabase(
      deployment.environment.databaseUrl,
      `SELECT 1 FROM user_budgets WHERE user_id = 'u'`,
    );
    expect(rows).toEqual([]);
  });

  it.each([
    ['input', { input: NUL }, 'input'],
    [
      'a message part',
      { input: [{ role: 'user', content: [{ type: 'input_text', text: NUL }] }] },
      'input[0].content[0].text',
    ],
    ['metadata', { input: 'hi', metadata: { note: NUL } }, 'metadata.note'],
    ['user', { input: 'hi', user: NUL }, 'user'],
  ])('the Responses API refuses a NUL in %s with its 400 error object', async (_field, fields, param) => {
    const answer = await send('POST', '/openai/v1/responses', { model: deployment.agentId, ...fields });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: {
        message: 'Value error, text must not contain the NUL character',
        type: 'invalid_request_error',
        param,
        code: null,
      },
    });
  });

  it('the Responses API refuses max_tool_calls 1e15 with its 400 error object', async () => {
    const answer = await send('POST', '/openai/v1/responses', {
      model: deployment.agentId,
      input: 'hi',
      max_tool_calls: 1e15,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: 'max_tool_calls' });
  });

  it('MCP refuses a NUL in a tool call with a JSON-RPC error, never PostgreSQL’s text', async () => {
    const tools = await send('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const [tool] = tools.body.result.tools;
    const answer = await send('POST', '/mcp', {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: tool.name, arguments: { message: NUL, user_id: 'u' } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32602,
        message:
          'Invalid params: Value error, text must not contain the NUL character at params.arguments.message',
      },
    });
    expect(await queryDatabase(deployment.environment.databaseUrl, 'SELECT 1 FROM threads')).toEqual([]);
  });

  it('MCP refuses a JSON-RPC batch as one Invalid Request, starting no run (MCP 2025-06-18 has no batching)', async () => {
    const tools = await send('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const [tool] = tools.body.result.tools;
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: tool.name, arguments: { message: '/say hi', user_id: 'u' } },
    });
    const answer = await send(
      'POST',
      '/mcp',
      Array.from({ length: 100 }, (_, index) => call(index + 1)),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    for (const notOne of [42, 'x', null]) {
      expect((await send('POST', '/mcp', notOne)).body).toMatchObject({ error: { code: -32600 } });
    }
    expect(await queryDatabase(deployment.environment.databaseUrl, 'SELECT 1 FROM threads')).toEqual([]);
  });
});
