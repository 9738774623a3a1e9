/**
 * The operations of a gateway's /openapi.json, and request values built from their schemas, for tests that
 * walk every route (the bad-input fuzz, the end-user token inventory): a route added later is walked too.
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** As the document writes it: `/chat/{thread_id}`. */
  path: string;
  /** `METHOD /path`, as tests pin and report operations. */
  name: string;
  pathParams: string[];
  queryParams: { name: string; schema: Schema }[];
  /** The schema of an `application/json` body, when the operation takes one. */
  jsonBody?: Schema;
}

export async function openApiDocument(baseUrl: string): Promise<Schema> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
  return (await response.json()) as Schema;
}

export function operationsOf(document: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as Schema | undefined;
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        resolve(document, parameter),
      );
      const jsonBody = resolve(document, operation.requestBody ?? {})?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema })),
        jsonBody,
      });
    }
  }
  return operations;
}

/** The path with each parameter replaced by `value` (URL-encoded). */
export const fillPath = (operation: Operation, value: (name: string) => string) =>
  operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(value(name)));

export function resolve(document: Schema, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 20; hops += 1) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    current = path.reduce<Schema>((node, key) => node?.[key], document);
  }
  return current;
}

/**
 * A value of `schema` whose leaves are chosen by `leaf` (given the leaf's schema and its property name): every
 * property of an object, one item of an array, the first member of a union.
 */
export function sampleOf(
  document: Schema,
  schema: Schema | undefined,
  leaf: (schema: Schema, name: string) => unknown,
  name = '',
  depth = 0,
): unknown {
  const resolved = resolve(document, schema ?? {});
  if (!resolved || depth > 8) return leaf({}, name);
  const member = (resolved.oneOf ?? resolved.anyOf ?? resolved.allOf)?.find(
    (item: Schema) => resolve(document, item)?.type !== 'null',
  );
  if (member) return sampleOf(document, member, leaf, name, depth + 1);
  const type = Array.isArray(resolved.type) ? resolved.type.find((t: string) => t !== 'null') : resolved.type;
  if (type === 'object' || resolved.properties) {
    return Object.fromEntries(
      Object.entries<Schema>(resolved.properties ?? {}).map(([key, property]) => [
        key,
        sampleOf(document, property, leaf, key, depth + 1),
      ]),
    );
  }
  if (type === 'array') return [sampleOf(document, resolved.items, leaf, name, depth + 1)];
  return leaf(resolved, name);
}
