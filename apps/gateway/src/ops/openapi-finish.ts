import { ApiProperty, OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;

/** Properties that hold any JSON value, by schema name: @nestjs/swagger would type them `object`. */
const anyValues = new Map<string, Set<string>>();

/** A property that may hold any JSON value (a tool's output, the input that failed validation). */
export const ApiAnyValue = (description: string, required = false): PropertyDecorator => {
  const describe = ApiProperty({ description, required });
  return (target, property) => {
    describe(target, property);
    const name = target.constructor.name;
    anyValues.set(name, (anyValues.get(name) ?? new Set()).add(String(property)));
  };
};

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** Names of the component schemas `value` refers to, directly or through other schemas. */
function referenced(value: unknown, schemas: Record<string, Schema>, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referenced(item, schemas, found));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && !found.has(refName(item))) {
        found.add(refName(item));
        referenced(schemas[refName(item)], schemas, found);
      } else referenced(item, schemas, found);
    }
  }
  return found;
}

/**
 * What the decorators cannot say: "any JSON value" properties lose the type @nestjs/swagger gives them, and the
 * schemas of responses are closed (`additionalProperties: false`), as a response holds exactly the fields its
 * schema lists. Request schemas stay open: unknown body fields are ignored (CONTRACTS §3).
 */
export function finishDocument(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const [name, properties] of anyValues) {
    const schema = schemas[name]?.properties as Record<string, Schema> | undefined;
    for (const property of properties) if (schema?.[property]) delete schema[property].type;
  }
  const responses = Object.values(document.paths).flatMap((path) =>
    Object.values(path).map((operation: { responses?: unknown }) => operation?.responses),
  );
  for (const name of referenced(responses, schemas)) {
    const schema = schemas[name];
    if (schema?.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  }
  return document;
}
