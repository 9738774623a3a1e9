import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { FieldSchema, isRequestDto, modelSchema, TypeSchema } from '@app/contracts';

/*
 * The OpenAPI description of every request DTO (bodies, query and path parameters) is derived from the same
 * class-validator rules the gateway validates with (libs/contracts/src/pydantic): types, limits, enums,
 * nullability and required-ness cannot drift from what a request is checked against. A DTO's own
 * `@ApiProperty` adds what the rules cannot say (description, example, `required: true` for a field its use case
 * requires). No `default` on an optional body field: generated clients make such a field required.
 */

/** Where @nestjs/swagger keeps a property's options (its `DECORATORS.API_MODEL_PROPERTIES`). */
const PROPERTY_OPTIONS = 'swagger/apiModelProperties';
/** Where it keeps the names of a class's properties (`DECORATORS.API_MODEL_PROPERTIES_ARRAY`). */
const PROPERTY_LIST = 'swagger/apiModelPropertiesArray';
/** Where it keeps the classes of @ApiExtraModels (`DECORATORS.API_EXTRA_MODELS`). */
const EXTRA_MODELS = 'swagger/apiExtraModels';

type Schema = Record<string, unknown>;

const defined = (schema: Schema): Schema =>
  Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));

function scalarSchema(type: TypeSchema): Schema {
  const { minLength, maxLength, pattern, ge, le } = type.constraints;
  switch (type.kind) {
    case 'str':
      return defined({ type: 'string', minLength, maxLength, pattern });
    case 'int':
    case 'float':
      return defined({ type: type.kind === 'int' ? 'integer' : 'number', minimum: ge, maximum: le });
    case 'bool':
      return { type: 'boolean' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'dict':
      return { type: 'object', additionalProperties: true };
    case 'enum':
      return { type: 'string', enum: [...type.values] };
    case 'literalOrPattern':
      return {
        type: 'string',
        oneOf: [
          { type: 'string', enum: [...type.values] },
          { type: 'string', pattern: type.pattern },
        ],
      };
    default:
      throw new Error(`no OpenAPI schema for a ${type.kind} item`);
  }
}

function propertyOptions(field: FieldSchema): ApiPropertyOptions {
  const { type } = field;
  const shared = { required: field.required, nullable: field.nullable || undefined };
  if (type.kind === 'model') return { ...shared, type: type.model.target };
  if (type.kind === 'list') {
    const list = defined({
      minItems: type.constraints.minLength,
      maxItems: type.constraints.maxLength,
      uniqueItems: type.constraints.unique,
    });
    if (type.item.kind === 'model')
      return { ...shared, ...list, type: type.item.model.target, isArray: true };
    return { ...shared, ...list, type: 'array', items: scalarSchema(type.item) } as ApiPropertyOptions;
  }
  return { ...shared, ...scalarSchema(type) } as ApiPropertyOptions;
}

const described = new WeakSet<object>();

function describe(target: new () => object): void {
  if (described.has(target)) return;
  described.add(target);
  // A field the request refuses (@NotAccepted) is no part of what a client may send.
  const fields = modelSchema(target).fields.filter((field) => field.type.kind !== 'notAccepted');
  for (const field of fields) {
    const own = Reflect.getMetadata(PROPERTY_OPTIONS, target.prototype, field.name) as
      ApiPropertyOptions | undefined;
    // The rules decide the schema; the DTO's own options only add words and values, and may say that a field
    // the rules let through is required all the same (a use case answers 400 or 422 when it is missing).
    const options = propertyOptions(field);
    if (own?.required === true) options.required = true;
    ApiProperty({ ...own, ...options } as ApiPropertyOptions)(target.prototype, field.name);
    const nested = field.type.kind === 'list' ? field.type.item : field.type;
    if (nested.kind === 'model') describe(nested.model.target);
  }
  // Properties in the DTO's order (the order a 422 lists them in), not in the order they were decorated.
  Reflect.defineMetadata(
    PROPERTY_LIST,
    fields.map((field) => `:${field.name}`),
    target.prototype,
  );
}

/** Gives every request DTO a handler of the application takes its OpenAPI description. */
export function describeRequestDtos(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      const prototype = (metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const handler of Object.getOwnPropertyNames(prototype)) {
        const parameters = (Reflect.getMetadata('design:paramtypes', prototype, handler) ?? []) as unknown[];
        // A body read by hand (a multipart upload) names its DTO in @ApiExtraModels instead.
        const extra = (Reflect.getMetadata(EXTRA_MODELS, (prototype as Record<string, object>)[handler]) ??
          []) as unknown[];
        [...parameters, ...extra].filter(isRequestDto).forEach(describe);
      }
    }
  }
}
