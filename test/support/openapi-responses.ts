import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/*
 * Every answer the e2e suite gets through `api()` is checked against the gateway's own OpenAPI document: its
 * status must be documented for the operation, and a JSON body must match that status's schema. The document
 * is fetched once per base URL (once per test file: jest loads this module per file).
 */

type Json = Record<string, unknown>;

/** What the gateway serves outside its API, so outside the document. */
const NOT_IN_DOCUMENT = ['/health', '/metrics', '/playground', '/docs', '/openapi.json', '/admin/queues'];

/** OpenAPI 3.0's `nullable` is not JSON Schema: rewrite it to a `null` type ajv understands. */
export function toJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonSchema);
  if (!value || typeof value !== 'object') return value;
  const { nullable, ...rest } = value as Json;
  const schema = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, toJsonSchema(item)]));
  if (nullable !== true) return schema;
  if (typeof schema.type === 'string') {
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
    };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

interface Operation {
  pattern: RegExp;
  parameters: number;
  method: string;
  path: string;
  statuses: Set<string>;
}

export class ResponseChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(toJsonSchema(document) as Json, 'openapi.json');
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const parameters = (path.match(/\{/g) ?? []).length;
      for (const [method, operation] of Object.entries(item)) {
        const statuses = new Set(Object.keys((operation.responses ?? {}) as Json));
        this.operations.push({ pattern, parameters, method: method.toUpperCase(), path, statuses });
      }
    }
    // A static segment wins over a parameter, as in the gateway's router (/chat/files/upload, not {thread_id}).
    this.operations.sort((a, b) => a.parameters - b.parameters);
  }

  /** Why the answer does not match the document, or null when it does. */
  problem(
    method: string,
    url: string,
    status: number,
    contentType: string | null,
    text: string,
  ): string | null {
    const path = new URL(url).pathname;
    if (NOT_IN_DOCUMENT.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return null;
    const operation = this.operations.find(
      (candidate) => candidate.method === method && candidate.pattern.test(path),
    );
    if (!operation) {
      // The router's own 404 for a route that does not exist.
      return status === 404 ? null : `${method} ${path}: no such operation in the document`;
    }
    const where = `${method} ${operation.path} ${status}`;
    if (!operation.statuses.has(String(status))) return `${where}: status not documented`;
    if (status === 204) return text === '' ? null : `${where}: a body on 204`;
    const mediaType = contentType?.split(';')[0].trim();
    if (mediaType !== 'application/json' && mediaType !== 'application/jsonl') return null;
    const validate = this.validator(operation, status, mediaType);
    if (!validate) return `${where}: ${mediaType} answered but no schema documented for it`;
    // A JSONL body is checked line by line: each line is one document of the schema.
    const documents =
      mediaType === 'application/json' ? [text] : text.split('\n').filter((line) => line !== '');
    for (const document of documents) {
      const body = JSON.parse(document) as unknown;
      if (!validate(body)) {
        return `${where}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}\n${document.slice(0, 2000)}`;
      }
    }
    return null;
  }

  private validator(operation: Operation, status: number, mediaType: string): ValidateFunction | null {
    const responses = (this.document.paths as Record<string, Record<string, Json>>)[operation.path][
      operation.method.toLowerCase()
    ].responses as Record<string, { content?: Record<string, unknown> }>;
    if (!responses[String(status)].content?.[mediaType]) return null;
    const ref = `openapi.json#/${[
      'paths',
      operation.path,
      operation.method.toLowerCase(),
      'responses',
      String(status),
      'content',
      mediaType,
      'schema',
    ]
      .map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/')}`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    return validate;
  }
}

const checkers = new Map<string, Promise<ResponseChecker | null>>();

/** The checker of a gateway, or null for a base URL that serves no OpenAPI document (a fake, a storage host). */
export function responseChecker(baseUrl: string): Promise<ResponseChecker | null> {
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = fetch(`${baseUrl}/openapi.json`)
      .then(async (response) => (response.ok ? new ResponseChecker((await response.json()) as Json) : null))
      .catch(() => null);
    checkers.set(baseUrl, checker);
  }
  return checker;
}
