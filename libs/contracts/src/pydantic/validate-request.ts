import { ValidationIssue } from '../errors';
import { LocRoot, pydanticIssue, valueErrorIssue } from '../validation-error';
import { laxAwareDatetime, laxBool, laxFloat, laxInt, laxUuid } from './lax';
import { Constraints, FieldSchema, ModelSchema, modelSchema, TypeSchema } from './request-schema';
import { PythonFloat } from './python-json';

/*
 * Pydantic v2's validation of a request, as FastAPI runs it (lax mode, Python objects from json.loads, query
 * and path values as strings): every failing field is reported, each list item at its index, a missing field
 * with the enclosing object as input, and in the order and words of pydantic-core. Project rule on top: text
 * never holds NUL (PostgreSQL refuses it), reported as the value_error of an after-validator.
 */

type Loc = (string | number)[];
type Outcome = { ok: true; value: unknown } | { ok: false };

const NUL_REASON = 'text must not contain the NUL character';
const UNIQUE_REASON = 'list items must be unique';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (isPlainObject(value))
    return Object.entries(value).some(([key, item]) => holdsNul(key) || holdsNul(item));
  return false;
}

/**
 * The 422 issue for the first NUL anywhere in a part of a request that no DTO describes (a protocol's own body,
 * a lone path parameter): at the string that holds it, or at the object whose key holds it. Such parts are read
 * by hand and reach PostgreSQL as text or jsonb, which cannot hold NUL; null when there is none.
 */
export function nulIssue(value: unknown, loc: Loc): ValidationIssue | null {
  if (typeof value === 'string')
    return value.includes('\u0000') ? valueErrorIssue(loc, value, NUL_REASON) : null;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : isPlainObject(value)
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    if (typeof key === 'string' && key.includes('\u0000')) return valueErrorIssue(loc, key, NUL_REASON);
    const found = nulIssue(item, [...loc, key]);
    if (found) return found;
  }
  return null;
}

const quoted = (values: readonly string[]) => values.map((value) => `'${value}'`);
/** Python's way of listing choices: `'a', 'b' or 'c'`. */
const choices = (values: readonly string[]) => {
  const all = quoted(values);
  return all.length === 1 ? all[0] : `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`;
};

class RequestValidator {
  readonly issues: ValidationIssue[] = [];

  constructor(private readonly fromStrings: boolean) {}

  model(schema: ModelSchema, input: Record<string, unknown>, loc: Loc, missingInput: unknown): object {
    const output = new schema.target() as Record<string, unknown>;
    const refused = schema.refused?.fields.filter((field) => Object.hasOwn(input, field)) ?? [];
    if (schema.refused && refused.length > 0) {
      const shown = Object.fromEntries(refused.map((field) => [field, input[field]]));
      this.valueError(loc, shown, schema.refused.reason);
      return output;
    }
    for (const field of schema.fields) {
      const value = this.field(field, input, loc, missingInput);
      if (value.ok && value.value !== undefined) output[field.name] = value.value;
    }
    return output;
  }

  private field(
    field: FieldSchema,
    input: Record<string, unknown>,
    loc: Loc,
    missingInput: unknown,
  ): Outcome {
    const at = [...loc, field.name];
    let value = Object.prototype.hasOwnProperty.call(input, field.name) ? input[field.name] : undefined;
    // A repeated query parameter is a list; a field that wants one value takes the last, as Starlette does.
    if (this.fromStrings && Array.isArray(value) && field.type.kind !== 'list')
      value = value[value.length - 1];
    if (value === undefined) {
      if (!field.required) return { ok: true, value: undefined };
      this.issues.push(pydanticIssue('missing', at, missingInput));
      return { ok: false };
    }
    if (value === null && field.nullable) return { ok: true, value: null };
    return this.value(field.type, value, at);
  }

  private value(type: TypeSchema, input: unknown, loc: Loc): Outcome {
    switch (type.kind) {
      case 'str':
        return this.text(type.constraints, input, loc);
      case 'int':
        return this.integer(type.constraints, input, loc);
      case 'float':
        return this.float(type.constraints, input, loc);
      case 'bool':
        return this.converted(laxBool(input), input, loc);
      case 'uuid':
        return this.converted(laxUuid(input), input, loc);
      case 'datetime':
        return this.converted(laxAwareDatetime(input), input, loc);
      case 'enum':
        if (typeof input === 'string' && type.values.includes(input)) return { ok: true, value: input };
        return this.fail('enum', loc, input, { expected: choices(type.values) });
      case 'literalOrPattern':
        return this.literalOrPattern(type, input, loc);
      case 'dict':
        if (!isPlainObject(input)) return this.fail('dict_type', loc, input);
        if (holdsNul(input)) return this.valueError(loc, input, NUL_REASON);
        return { ok: true, value: input };
      case 'model':
        if (!isPlainObject(input)) return this.fail('model_attributes_type', loc, input);
        return this.nested(type.model, input, loc);
      case 'list':
        return this.list(type, input, loc);
      case 'notAccepted':
        return this.fail('extra_forbidden', loc, input);
    }
  }

  private nested(schema: ModelSchema, input: Record<string, unknown>, loc: Loc): Outcome {
    const before = this.issues.length;
    const value = this.model(schema, input, loc, input);
    return this.issues.length === before ? { ok: true, value } : { ok: false };
  }

  private text(constraints: Constraints, input: unknown, loc: Loc): Outcome {
    if (typeof input !== 'string') return this.fail('string_type', loc, input);
    const length = [...input].length;
    const { minLength, maxLength, pattern, patternReason } = constraints;
    if (minLength !== undefined && length < minLength) {
      return this.fail('string_too_short', loc, input, { min_length: minLength });
    }
    if (maxLength !== undefined && length > maxLength) {
      return this.fail('string_too_long', loc, input, { max_length: maxLength });
    }
    if (pattern !== undefined && !new RegExp(pattern).test(input)) {
      if (patternReason !== undefined) return this.valueError(loc, input, patternReason);
      return this.fail('string_pattern_mismatch', loc, input, { pattern });
    }
    if (input.includes('\u0000')) return this.valueError(loc, input, NUL_REASON);
    return { ok: true, value: input };
  }

  private integer(constraints: Constraints, input: unknown, loc: Loc): Outcome {
    const parsed = laxInt(input);
    if (!parsed.ok) return this.fail(parsed.type, loc, input);
    const { big, number } = parsed.value;
    if (constraints.le !== undefined && big > BigInt(constraints.le)) {
      return this.fail('less_than_equal', loc, input, { le: constraints.le });
    }
    if (constraints.ge !== undefined && big < BigInt(constraints.ge)) {
      return this.fail('greater_than_equal', loc, input, { ge: constraints.ge });
    }
    return { ok: true, value: number };
  }

  private float(constraints: Constraints, input: unknown, loc: Loc): Outcome {
    const parsed = laxFloat(input);
    if (!parsed.ok) return this.fail(parsed.type, loc, input);
    const value = parsed.value;
    // Written as pydantic-core does (`!(value <= le)`), so NaN fails a bound too. A float's bound is a float.
    if (constraints.le !== undefined && !(value <= constraints.le)) {
      return this.fail('less_than_equal', loc, input, { le: new PythonFloat(constraints.le) });
    }
    if (constraints.ge !== undefined && !(value >= constraints.ge)) {
      return this.fail('greater_than_equal', loc, input, { ge: new PythonFloat(constraints.ge) });
    }
    return { ok: true, value };
  }

  private literalOrPattern(
    type: Extract<TypeSchema, { kind: 'literalOrPattern' }>,
    input: unknown,
    loc: Loc,
  ) {
    if (typeof input === 'string' && type.values.includes(input)) return this.afterText(input, loc);
    if (typeof input === 'string' && new RegExp(type.pattern).test(input)) return this.afterText(input, loc);
    const literalTag = `literal[${quoted(type.values).join(',')}]`;
    this.fail('literal_error', [...loc, literalTag], input, { expected: choices(type.values) });
    if (typeof input !== 'string') return this.fail('string_type', [...loc, 'constrained-str'], input);
    return this.fail('string_pattern_mismatch', [...loc, 'constrained-str'], input, {
      pattern: type.pattern,
    });
  }

  private afterText(input: string, loc: Loc): Outcome {
    return input.includes('\u0000') ? this.valueError(loc, input, NUL_REASON) : { ok: true, value: input };
  }

  private list(type: Extract<TypeSchema, { kind: 'list' }>, input: unknown, loc: Loc): Outcome {
    // A single query parameter where a list is declared is a list of one.
    const items = this.fromStrings && typeof input === 'string' ? [input] : input;
    if (!Array.isArray(items)) return this.fail('list_type', loc, input);
    const { maxLength, minLength, unique } = type.constraints;
    if (maxLength !== undefined && items.length > maxLength) {
      return this.fail('too_long', loc, items, {
        field_type: 'List',
        max_length: maxLength,
        actual_length: items.length,
      });
    }
    const before = this.issues.length;
    const values = items.map((item, index) => {
      const outcome = this.value(type.item, item, [...loc, index]);
      return outcome.ok ? outcome.value : undefined;
    });
    if (this.issues.length > before) return { ok: false };
    if (minLength !== undefined && items.length < minLength) {
      return this.fail('too_short', loc, items, {
        field_type: 'List',
        min_length: minLength,
        actual_length: items.length,
      });
    }
    if (unique && new Set(values).size !== values.length) return this.valueError(loc, items, UNIQUE_REASON);
    return { ok: true, value: values };
  }

  private converted(
    outcome: { ok: true; value: unknown } | { ok: false; type: string; ctx?: Record<string, unknown> },
    input: unknown,
    loc: Loc,
  ): Outcome {
    return outcome.ok ? { ok: true, value: outcome.value } : this.fail(outcome.type, loc, input, outcome.ctx);
  }

  private fail(type: string, loc: Loc, input: unknown, ctx?: Record<string, unknown>): Outcome {
    this.issues.push(pydanticIssue(type, loc, input, ctx));
    return { ok: false };
  }

  private valueError(loc: Loc, input: unknown, reason: string): Outcome {
    this.issues.push(valueErrorIssue(loc, input, reason));
    return { ok: false };
  }
}

export type RequestValidation<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Validates one part of a request (the body, the query or the path parameters) against its DTO class, and
 * answers an instance holding only the declared fields, converted as Pydantic converts them.
 */
export function validateRequest<T extends object>(
  target: new () => T,
  input: unknown,
  root: LocRoot,
): RequestValidation<T> {
  return validateWithSchema(modelSchema(target), input, root) as RequestValidation<T>;
}

/** `validateRequest` against the DTO's schema (`modelSchema`), for a caller that keeps it: a route's validation. */
export function validateWithSchema(
  schema: ModelSchema,
  input: unknown,
  root: LocRoot,
): RequestValidation<object> {
  const validator = new RequestValidator(root !== 'body');
  if (root === 'body') {
    // FastAPI answers a body that is absent or JSON null as missing, and anything but an object as not a model.
    if (input === undefined || input === null) {
      return { ok: false, issues: [pydanticIssue('missing', ['body'], null)] };
    }
    if (!isPlainObject(input)) {
      return { ok: false, issues: [pydanticIssue('model_attributes_type', ['body'], input)] };
    }
  }
  const parameters = isPlainObject(input) ? input : {};
  // FastAPI reports a missing body field with the body as input, a missing parameter with null.
  const value = validator.model(schema, parameters, [root], root === 'body' ? parameters : null);
  return validator.issues.length === 0 ? { ok: true, value } : { ok: false, issues: validator.issues };
}
