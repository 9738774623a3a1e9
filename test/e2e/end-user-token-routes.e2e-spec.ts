import { createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { fillPath, Operation, openApiDocument, operationsOf } from '../support/openapi-walk';
import { AppProcess, startGateway } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

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

let environment: TestEnvironment;
let gateway: AppProcess;
let org: OrgFixture;
let token: string;
let operations: Operation[];

beforeAll(async () => {
  environment = await createTestEnvironment();
  gateway = await startGateway(environment.env, { RATE_LIMIT_PER_MINUTE: '0' });
  org = await createOrg(environment.env);
  const minted = await api(gateway.url!, org.key).post('/end-user-tokens', { user_id: 'eve' });
  expect(minted.status).toBe(200);
  token = minted.body.token;
  operations = operationsOf(await openApiDocument(gateway.url!));
});

afterAll(async () => {
  await gateway?.stop();
  await environment?.dispose();
});

/** The request a token's holder might make: an unknown id in the path, no query, a body that fails validation. */
async function asToken(operation: Operation): Promise<{ status: number; body: unknown }> {
  const takesBody = ['POST', 'PUT', 'PATCH'].includes(operation.method);
  const response = await fetch(`${gateway.url}${fillPath(operation, () => SOME_ID)}`, {
    method: operation.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(takesBody ? { 'content-type': 'application/json' } : {}),
    },
    body: takesBody ? JSON.stringify({ unexpected: ['not', 'valid'] }) : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: compared as text
  }
  return { status: response.status, body };
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
