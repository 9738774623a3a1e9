import { useDeployment } from '../support/deployment';
import { fillPath, Operation, openApiDocument, operationsOf } from '../support/openapi-walk';

/*
 * The route list of end-user tokens is closed (CONTRACTS §17, §21): every operation of /openapi.json is either
 * pinned below as open to a token, or answers a valid token 403 before any other check (validation, lookup,
 * 404). A route added later is closed until someone adds it here, and a pinned route that disappears fails too.
 */
const FORBIDDEN = { detail: 'Not allowed with an end-user token' };

/** What a browser's token may use: §17's list, with §18's protocols, §19's approvals and branches, §20's feedback. */
const OPEN_TO_TOKENS = [
  // The chat endpoints and the reply stream (§4, §5).
  'POST /chat',
  'GET /chat',
  'POST /chat/{thread_id}',
  'GET /chat/{thread_id}',
  'PUT /chat/{thread_id}',
  'DELETE /chat/{thread_id}',
  'GET /chat/messages/{message_id}/stream',
  // Uploads (§8): the permission; the bytes go to the storage host it names.
  'GET /chat/files/upload',
  // The AI SDK's chat protocol (§17).
  'POST /ai-sdk/chat',
  'GET /ai-sdk/chat/{id}/stream',
  'GET /ai-sdk/chat/{id}/messages',
  'POST /ai-sdk/chat/{id}/stop',
  // The Responses API and the MCP server (§18).
  'POST /openai/v1/responses',
  'GET /openai/v1/responses/{response_id}',
  'POST /openai/v1/responses/{response_id}/cancel',
  'POST /mcp',
  // A2A and AG-UI (§22).
  'GET /a2a/agents/{agent_id}/.well-known/agent-card.json',
  'POST /a2a/agents/{agent_id}',
  'POST /ag-ui/agents/{agent_id}',
  // Approvals, regenerate, edit and branches of its own threads (§19).
  'POST /chat/messages/{message_id}/approvals',
  'POST /chat/{thread_id}/regenerate',
  'POST /chat/{thread_id}/edit',
  'GET /chat/{thread_id}/branches',
  'PUT /chat/{thread_id}/branches/active',
  // Feedback on a reply (§20).
  'PUT /chat/messages/{message_id}/feedback',
];

/** Operations that take no credential at all: a token is neither needed nor refused there. */
const PUBLIC = ['GET /share/{link_id}'];

const SOME_ID = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8b';

const deployment = useDeployment({ gatewayEnv: { RATE_LIMIT_PER_MINUTE: '0' } });
let token: string;
let operations: Operation[];

beforeAll(async () => {
  const minted = await deployment.client().post('/end-user-tokens', { user_id: 'eve' });
  expect(minted.status).toBe(200);
  token = minted.body.token;
  operations = operationsOf(await openApiDocument(deployment.url));
});

/** A JSON body that fails validation, and one that is not JSON at all. */
const BODIES = { invalid: JSON.stringify({ unexpected: ['not', 'valid'] }), unreadable: '{"unexpected": [' };

/**
 * The request a token's holder might make: an unknown id in the path, no query, a body that fails validation (or
 * does not parse); without `credential`, the same request with none.
 */
async function asToken(
  operation: Operation,
  body: keyof typeof BODIES = 'invalid',
  credential: string | null = token,
): Promise<{ status: number; body: unknown }> {
  const takesBody = ['POST', 'PUT', 'PATCH'].includes(operation.method);
  const response = await fetch(`${deployment.url}${fillPath(operation, () => SOME_ID)}`, {
    method: operation.method,
    headers: {
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      ...(takesBody ? { 'content-type': 'application/json' } : {}),
    },
    body: takesBody ? BODIES[body] : undefined,
  });
  const text = await response.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    // not JSON: compared as text
  }
  return { status: response.status, body: answer };
}

it('pins operations that exist: a pinned route that disappears or is renamed fails here', () => {
  const names = new Set(operations.map((operation) => operation.name));
  expect([...OPEN_TO_TOKENS, ...PUBLIC].filter((name) => !names.has(name))).toEqual([]);
});

it('answers every other operation of /openapi.json 403 to a valid token, before validation or lookup', async () => {
  const pinned = new Set([...OPEN_TO_TOKENS, ...PUBLIC]);
  const closed = operations.filter((operation) => !pinned.has(operation.name));
  expect(closed.length).toBeGreaterThan(30);
  const wrong: { operation: string; status: number; body: unknown }[] = [];
  for (const operation of closed) {
    const answer = await asToken(operation);
    if (answer.status !== 403 || JSON.stringify(answer.body) !== JSON.stringify(FORBIDDEN)) {
      wrong.push({ operation: operation.name, ...answer });
    }
  }
  expect(wrong).toEqual([]);
});

it('answers who may call before what was sent: a body that does not parse gets 403 to a token, 401 to no one', async () => {
  const pinned = new Set([...OPEN_TO_TOKENS, ...PUBLIC]);
  const withBody = operations.filter((operation) => ['POST', 'PUT', 'PATCH'].includes(operation.method));
  const wrong: { operation: string; status: number }[] = [];
  for (const operation of withBody.filter((operation) => !pinned.has(operation.name))) {
    const answer = await asToken(operation, 'unreadable');
    if (answer.status !== 403) wrong.push({ operation: operation.name, status: answer.status });
  }
  for (const operation of withBody.filter((operation) => !PUBLIC.includes(operation.name))) {
    const answer = await asToken(operation, 'unreadable', null);
    if (answer.status !== 401)
      wrong.push({ operation: `${operation.name} without a credential`, status: answer.status });
  }
  expect(wrong).toEqual([]);
  // A caller with the right to the route still learns what is wrong with its body.
  const post = await asToken(
    operations.find((operation) => operation.name === 'POST /chat')!,
    'unreadable',
  );
  expect(post.status).toBe(422);
  expect(JSON.stringify(post.body)).toContain('json_invalid');
});

it('lets the token through on the pinned operations (they answer anything but this 403)', async () => {
  const refused: string[] = [];
  for (const operation of operations.filter((operation) => OPEN_TO_TOKENS.includes(operation.name))) {
    // Only what answers at once: a route that would stream or wait for a reply is given an unknown id or a bad body.
    const answer = await asToken(operation);
    if (answer.status === 403 && JSON.stringify(answer.body) === JSON.stringify(FORBIDDEN)) {
      refused.push(operation.name);
    }
  }
  expect(refused).toEqual([]);
});
