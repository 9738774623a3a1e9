import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BrowserContext, chromium } from 'playwright-core';
import { ResponseChecker } from '../support/openapi-responses';
import { useDeployment } from '../support/deployment';

/**
 * The OpenAPI document is the contract an integrator reads first (issue #20): no empty schema, every route of
 * the spec and CONTRACTS with its parameters, answers and errors, Redocly's recommended rules clean, and
 * POST /chat readable in /docs (the screenshot is kept in docs/). That real answers match it is checked on
 * every call of the e2e suite (test/support/openapi-responses.ts).
 */

type Json = Record<string, any>;

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const LINT = join(__dirname, '..', 'support', 'redocly-lint.mjs');

/**
 * Every ```ts block of the guide, in order: one program written against a generated client. Examples for a
 * framework this test does not install (the Next.js one of "Front ends") are ```typescript or ```tsx blocks.
 */
function guideTypeScript(): string {
  const guide = readFileSync(join(DOCS, 'guide.md'), 'utf8');
  return [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((block) => block[1]).join('\n');
}

/** Request body schemas (components referred to by a requestBody), by name. */
function requestSchemas(document: Json): Record<string, Json> {
  const schemas = document.components.schemas as Record<string, Json>;
  const names = new Set<string>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key === '$ref' && typeof item === 'string') {
          const name = item.slice(item.lastIndexOf('/') + 1);
          if (!names.has(name)) {
            names.add(name);
            collect(schemas[name]);
          }
        } else collect(item);
      }
    }
  };
  for (const { operation } of operations(document)) collect(operation.requestBody);
  return Object.fromEntries([...names].map((name) => [name, schemas[name]]));
}

/** Every operation of API-SPEC §4 and CONTRACTS §4-§15 and §18 (routines excepted: not built yet). */
const OPERATIONS = [
  'POST /chat',
  'GET /chat',
  'POST /chat/{thread_id}',
  'GET /chat/{thread_id}',
  'PUT /chat/{thread_id}',
  'DELETE /chat/{thread_id}',
  'POST /chat/{thread_id}/regenerate',
  'POST /chat/{thread_id}/edit',
  'GET /chat/{thread_id}/branches',
  'PUT /chat/{thread_id}/branches/active',
  'GET /chat/messages/{message_id}/stream',
  'GET /chat/files/upload',
  'GET /chat/files/{file_id}',
  'POST /chat/files/{file_id}/share_links',
  'DELETE /chat/files/{file_id}/share_links/{link_id}',
  'GET /share/{link_id}',
  'GET /memory/file',
  'PUT /memory/file',
  'DELETE /memory/file',
  'GET /memory/files',
  'POST /dc/connections',
  'GET /dc/connections',
  'GET /dc/connections/{id}',
  'DELETE /dc/connections/{id}',
  'POST /dc/connections/{id}/check',
  'POST /dc/sources',
  'GET /dc/sources',
  'GET /dc/sources/{source_pid}',
  'PUT /dc/sources/{source_pid}',
  'DELETE /dc/sources/{source_pid}',
  'POST /dc/sources/{source_pid}/sync',
  'GET /dc/sources/{source_pid}/documents',
  'POST /dc/sources/{source_pid}/documents',
  'POST /agent_execution/query_templates',
  'GET /agent_execution/query_templates',
  'GET /agent_execution/query_templates/{id}',
  'PUT /agent_execution/query_templates/{id}',
  'DELETE /agent_execution/query_templates/{id}',
  'POST /skills',
  'GET /skills',
  'GET /skills/{skill_pid}',
  'PUT /skills/{skill_pid}',
  'DELETE /skills/{skill_pid}',
  'POST /agents',
  'GET /agents',
  'GET /agents/{id}',
  'PUT /agents/{id}',
  'DELETE /agents/{id}',
  'POST /webhooks',
  'GET /webhooks',
  'GET /webhooks/{id}',
  'PUT /webhooks/{id}',
  'DELETE /webhooks/{id}',
  'GET /webhooks/{id}/deliveries',
  'GET /usage',
  'PUT /budgets/users/{user_id}',
  'GET /budgets/users/{user_id}',
  'DELETE /budgets/users/{user_id}',
  'PUT /chat/messages/{message_id}/feedback',
  'GET /feedback',
  'GET /audit-events',
  'DELETE /users/{user_id}',
  'GET /erasures/{erasure_id}',
  'GET /users/{user_id}/export',
  'GET /settings/retention',
  'PUT /settings/retention',
  'POST /openai/v1/responses',
  'GET /openai/v1/responses/{response_id}',
  'POST /openai/v1/responses/{response_id}/cancel',
  'POST /mcp',
];

/**
 * Routes whose path names an end user (a free string, CONTRACTS §1) and that set something or read whatever there
 * is: never a 404.
 */
const SET_BY_END_USER_ID = [
  'PUT /budgets/users/{user_id}',
  'DELETE /users/{user_id}',
  'GET /users/{user_id}/export',
];

/** The routes of the protocols of CONTRACTS §18, which speak OpenAI's and MCP's shapes, not the API's. */
const PROTOCOL_ROUTE = /^\w+ \/(openai\/v1|mcp|a2a|ag-ui)\b/;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const DEPLOYMENT_TAG = 'v2026.11.25-rc1';

function operations(document: Json): { name: string; operation: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        name: `${method.toUpperCase()} ${path}`,
        operation: operation as Json,
      })),
  );
}

/**
 * Schemas that say nothing: an object without properties, additionalProperties or composition (what
 * @nestjs/swagger makes of an undecorated class), or `{}` without even a description.
 */
function emptySchemas(value: unknown, at = '#', found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item, index) => emptySchemas(item, `${at}/${index}`, found));
  if (!value || typeof value !== 'object' || Array.isArray(value)) return found;
  const schema = value as Json;
  const says = ['properties', 'additionalProperties', '$ref', 'oneOf', 'anyOf', 'allOf'].some(
    (key) => key in schema,
  );
  const noProperties = schema.properties && Object.keys(schema.properties).length === 0;
  if ((schema.type === 'object' && !says) || noProperties) found.push(at);
  for (const [key, item] of Object.entries(schema)) {
    // Examples are values, not schemas.
    if (key !== 'example' && key !== 'examples') emptySchemas(item, `${at}/${key}`, found);
  }
  return found;
}

describe('the OpenAPI document', () => {
  const deployment = useDeployment({ gatewayEnv: { DEPLOYMENT_TAG: DEPLOYMENT_TAG }, org: false });
  let document: Json;

  beforeAll(async () => {
    document = (await (await fetch(`${deployment.url}/openapi.json`)).json()) as Json;
  });

  it('carries the deployment tag as its version, with the deployment metadata (CONTRACTS §16)', () => {
    expect(document.info.version).toBe(DEPLOYMENT_TAG);
    const metadata = document.info['x-deployment'] as Json;
    expect(Object.keys(metadata).sort()).toEqual(['built_at', 'commit', 'started_at', 'tag']);
    expect(metadata.tag).toBe(DEPLOYMENT_TAG);
    expect(metadata.commit === null || /^[0-9a-f]{7,}$/.test(metadata.commit)).toBe(true);
    expect(Date.parse(metadata.built_at)).toBeLessThanOrEqual(Date.parse(metadata.started_at));
    expect(Date.now() - Date.parse(metadata.started_at)).toBeLessThan(10 * 60 * 1000);
  });

  it('has no empty schema', () => {
    expect(emptySchemas(document)).toEqual([]);
  });

  it('lists every operation of the spec and CONTRACTS', () => {
    const listed = operations(document).map(({ name }) => name);
    expect(OPERATIONS.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('gives every operation a summary, its path parameters and a schema for each JSON answer', () => {
    for (const { name, operation } of operations(document)) {
      expect({ name, summary: typeof operation.summary }).toEqual({ name, summary: 'string' });
      const inPath = [...name.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      const declared = ((operation.parameters ?? []) as Json[])
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => parameter.name as string)
        .sort();
      expect({ name, path: declared }).toEqual({ name, path: inPath });
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const content = (response as Json).content as Json | undefined;
        if (status === '204') expect({ name, status, content }).toEqual({ name, status, content: undefined });
        for (const [type, media] of Object.entries(content ?? {})) {
          expect({ name, status, type, schema: Boolean((media as Json).schema) }).toEqual({
            name,
            status,
            type,
            schema: true,
          });
        }
      }
    }
  });

  it('documents the errors: 401 behind the token, 422 with the validation body, 404 on a resource', () => {
    for (const { name, operation } of operations(document)) {
      const responses = operation.responses as Json;
      if (name !== 'GET /share/{link_id}') {
        expect({ name, has401: '401' in responses }).toEqual({ name, has401: true });
      }
      // The protocols of CONTRACTS §18 and §22 answer bad input in their own shapes (below), never a 422.
      if (name !== 'GET /share/{link_id}' && !PROTOCOL_ROUTE.test(name)) {
        expect({ name, schema: responses['422']?.content?.['application/json']?.schema }).toEqual({
          name,
          schema: { $ref: '#/components/schemas/ValidationErrorResponse' },
        });
      }
      // A PUT that sets something of an end user (any user id) has nothing to find first.
      if (/\{[^}]+\}/.test(name) && !SET_BY_END_USER_ID.includes(name))
        expect({ name, has404: '404' in responses }).toEqual({ name, has404: true });
    }
    expect(document.components.schemas.ValidationIssueResponse.required).toEqual(['loc', 'msg', 'type']);
  });

  it('documents the Responses routes with their schemas and OpenAI error body, and the MCP endpoint', () => {
    const create = document.paths['/openai/v1/responses'].post as Json;
    // `user` is required with a service key only: an end-user token implies it (CONTRACTS §17).
    const createBody = create.requestBody.content['application/json'].schema;
    expect(createBody.required).toEqual(['model', 'input']);
    expect(createBody.properties.user.description).toMatch(/required with a service key/);
    expect(create.responses['403'].content['application/json'].schema.properties.error).toBeDefined();
    expect(Object.keys(create.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(create.responses['200'].content['application/json'].schema.properties.status.enum).toEqual([
      'queued',
      'in_progress',
      'completed',
      'failed',
      'cancelled',
    ]);
    expect(create.responses['400'].content['application/json'].schema.properties.error.required).toEqual([
      'message',
      'type',
      'param',
      'code',
    ]);
    const retrieve = document.paths['/openai/v1/responses/{response_id}'].get as Json;
    expect((retrieve.parameters as Json[]).map((parameter) => parameter.name).sort()).toEqual([
      'response_id',
      'starting_after',
      'stream',
    ]);
    expect(document.paths['/openai/v1/responses/{response_id}/cancel'].post).toBeDefined();
    const mcp = document.paths['/mcp'].post as Json;
    expect(mcp.description).toMatch(/tools\/list/);
    expect(mcp.requestBody.content['application/json'].schema.required).toEqual(['jsonrpc', 'method']);
    // A typed client learns what the 200 carries: a JSON-RPC answer, as JSON or as server-sent events.
    expect(Object.keys(mcp.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    expect(mcp.responses['200'].content['application/json'].schema.required).toEqual(['jsonrpc', 'id']);
    expect(document.paths['/mcp'].get).toBeUndefined();
  });

  it('documents POST /chat with its limits, defaults and an example', () => {
    const schemas = document.components.schemas as Json;
    const post = document.paths['/chat'].post as Json;
    expect(post.requestBody.content['application/json'].examples.minimal.value.message.content).toEqual(
      expect.any(String),
    );
    expect(schemas.HumanMessageDto.properties.content.maxLength).toBe(30000);
    expect(schemas.HumanMessageDto.properties.file_ids).toMatchObject({ maxItems: 5, uniqueItems: true });
    expect(schemas.StartChatOptionsDto.properties.max_steps).toMatchObject({ minimum: 1 });
    expect(schemas.StartChatOptionsDto.properties.max_steps.description).toMatch(/server default .*60/);
    expect(schemas.StartChatOptionsDto.properties.memory_namespace).toMatchObject({ maxLength: 128 });
    const limit = (document.paths['/chat'].get.parameters as Json[]).find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
  });

  it('says server-side defaults of optional request fields in words, never as a schema default', () => {
    // openapi-typescript (defaultNonNullable) makes a property with a `default` required in the client.
    const defaulted = Object.entries(requestSchemas(document)).flatMap(([name, schema]) =>
      Object.entries((schema.properties ?? {}) as Json)
        .filter(([, property]) => 'default' in (property as Json))
        .map(([property]) => `${name}.${property}`),
    );
    expect(defaulted).toEqual([]);
    const routines = document.components.schemas as Json;
    expect(routines.CreateRoutineDto.properties.active.description).toMatch(/Omitted: true/);
    expect(routines.UpdateRoutineDto.properties.active.description).toMatch(/Omitted: unchanged/);
  });

  it('marks as required the inputs the server requires beyond validation (user_id on writes, namespace)', () => {
    const parameter = (name: string, parameterName: string): Json | undefined => {
      const [method, path] = name.split(' ');
      const found = ((document.paths[path][method.toLowerCase()] as Json).parameters ?? []) as Json[];
      return found.find((candidate) => candidate.name === parameterName);
    };
    for (const name of [
      'POST /agent_execution/query_templates',
      'PUT /agent_execution/query_templates/{id}',
      'POST /dc/connections',
      'POST /dc/sources',
      'POST /dc/sources/{source_pid}/documents',
      'POST /skills',
    ])
      expect({ name, required: parameter(name, 'user_id')?.required }).toEqual({ name, required: true });
    expect(parameter('GET /agent_execution/query_templates', 'user_id')?.required).toBe(false);
    for (const name of ['GET /memory/file', 'DELETE /memory/file', 'GET /memory/files'])
      expect({ name, required: parameter(name, 'namespace')?.required }).toEqual({ name, required: true });
    expect(document.components.schemas.WriteMemoryFileDto.required).toContain('namespace');
  });

  it("compiles the guide's TypeScript against a client generated with openapi-typescript's defaults", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-openapi-client-'));
    try {
      const bin = (name: string) => join(ROOT, 'node_modules', name);
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
      await promisify(execFile)(process.execPath, [
        bin('openapi-typescript/bin/cli.js'),
        join(dir, 'openapi.json'),
        '--output',
        join(dir, 'parley-api.d.ts'),
      ]);
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'guide.ts'), guideTypeScript());
      // An ES module, as a TypeScript project on NodeNext resolution has it (the guide awaits at its top level).
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      expect(guideTypeScript()).toContain("parley.POST('/chat'");
      // A bundler's resolution and Node's own: the guide's import must satisfy both.
      for (const resolution of [
        { module: 'ESNext', moduleResolution: 'Bundler' },
        { module: 'NodeNext', moduleResolution: 'NodeNext' },
      ]) {
        const compilerOptions = {
          noEmit: true,
          strict: true,
          target: 'ES2022',
          ...resolution,
          lib: ['ES2023', 'DOM'],
          types: [],
        };
        writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['guide.ts'] }));
        const compile = promisify(execFile)(process.execPath, [bin('typescript/bin/tsc'), '-p', dir]);
        const { stdout } = await compile.catch((error: { stdout: string }) => ({ stdout: error.stdout }));
        expect({ ...resolution, errors: stdout }).toEqual({ ...resolution, errors: '' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('documents the reply stream as application/jsonl, one schema per line type', () => {
    const stream = document.paths['/chat/messages/{message_id}/stream'].get as Json;
    const schema = stream.responses['200'].content['application/jsonl'].schema as Json;
    expect(Object.keys(schema.discriminator.mapping).sort()).toEqual([
      'approval.decided',
      'approval.requested',
      'context.compacted',
      'guardrail.triggered',
      'heartbeat',
      'message.completed',
      'message.started',
      'model.fallback',
      'questions',
      'step.started',
      'text.delta',
      'tool.call',
      'tool.result',
    ]);
    expect(schema.oneOf).toHaveLength(13);
  });

  it('lets the e2e checker refuse answers off the document', () => {
    const checker = new ResponseChecker(document);
    const thread = `${deployment.url}/chat/0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11`;
    const json = 'application/json';
    const summary = {
      id: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11',
      name: 'n',
      created_at: '2026-11-25T01:00:00.000Z',
      live: false,
      agent: { id: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c12', name: 'a' },
      starred: false,
    };
    expect(checker.problem('PUT', thread, 200, json, JSON.stringify(summary))).toBeNull();
    expect(checker.problem('PUT', thread, 200, json, JSON.stringify({ ...summary, extra: 1 }))).toMatch(
      /additional properties/,
    );
    expect(checker.problem('PUT', thread, 200, json, JSON.stringify({ ...summary, live: null }))).toMatch(
      /live must be boolean/,
    );
    expect(checker.problem('PUT', thread, 500, json, '{"detail":"Internal error"}')).toMatch(
      /not documented/,
    );
    expect(checker.problem('DELETE', thread, 204, null, 'x')).toMatch(/a body on 204/);
    expect(
      checker.problem('GET', `${deployment.url}/nowhere`, 404, json, '{"detail":"Not Found"}'),
    ).toBeNull();
    const stream = `${thread}/stream`.replace('/chat/', '/chat/messages/');
    expect(
      checker.problem('GET', stream, 200, 'application/jsonl', '{"seq":0,"type":"step.started","step":1}\n'),
    ).toBeNull();
    expect(
      checker.problem('GET', stream, 200, 'application/jsonl', '{"seq":0,"type":"step.started"}\n'),
    ).toMatch(/step/);
  });

  it("passes Redocly's recommended rules without an error", async () => {
    const child = promisify(execFile)(process.execPath, [LINT], { maxBuffer: 16 * 1024 * 1024 });
    child.child.stdin!.end(JSON.stringify(document));
    const problems = JSON.parse((await child).stdout) as { severity: string }[];
    expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  });

  it('shows POST /chat in /docs with its request schema, example and answers (docs/openapi-post-chat.png)', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (see .ci/run)`);
    }
    const profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
    let browser: BrowserContext | undefined;
    try {
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1280, height: 900 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
        ],
      });
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.goto(`${deployment.url}/docs`);
      const operation = page.locator('#operations-chat-ChatController_start');
      await operation.locator('.opblock-summary').click();
      const body = operation.locator('.opblock-section-request-body');
      await body.getByText('Example Value').waitFor();
      await operation.getByText('Start a thread and post its first message').first().waitFor();
      await operation.locator('.responses-table').getByText('422', { exact: true }).waitFor();
      await operation.screenshot({ path: join(DOCS, 'openapi-post-chat.png') });
      // The same operation with the request body's schema instead of its example.
      await body.getByText('Schema', { exact: true }).click();
      await body.locator('.model-box').first().waitFor();
      // Open the message and options models too, so their fields and limits show.
      for (let depth = 0; depth < 2; depth += 1) {
        for (const toggle of await body.locator('.model-box .model-toggle.collapsed').all())
          await toggle.click();
      }
      // StartChatDto, HumanMessageDto and StartChatOptionsDto open.
      await body.locator('.model-box .model-toggle:not(.collapsed)').nth(2).waitFor();
      await operation.screenshot({ path: join(DOCS, 'openapi-post-chat-schema.png') });
    } finally {
      await browser?.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
