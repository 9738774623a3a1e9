import { ValidationIssue } from './errors';

export type LocRoot = 'body' | 'query' | 'path' | 'header';

const plural = (count: unknown) => (count === 1 ? '' : 's');

/**
 * pydantic-core's message for each error type we raise (`src/errors/types.rs`), from the error's ctx. The one
 * table of wording: the validator (`pydantic/validate-request.ts`) decides the type and ctx, this says it.
 */
const MESSAGES: Record<string, (ctx: Record<string, unknown>) => string> = {
  missing: () => 'Field required',
  string_type: () => 'Input should be a valid string',
  string_too_short: (c) => `String should have at least ${c.min_length} character${plural(c.min_length)}`,
  string_too_long: (c) => `String should have at most ${c.max_length} character${plural(c.max_length)}`,
  string_pattern_mismatch: (c) => `String should match pattern '${c.pattern}'`,
  int_type: () => 'Input should be a valid integer',
  int_parsing: () => 'Input should be a valid integer, unable to parse string as an integer',
  int_parsing_size: () => 'Unable to parse input string as an integer, exceeded maximum size',
  int_from_float: () => 'Input should be a valid integer, got a number with a fractional part',
  float_type: () => 'Input should be a valid number',
  float_parsing: () => 'Input should be a valid number, unable to parse string as a number',
  finite_number: () => 'Input should be a finite number',
  bool_type: () => 'Input should be a valid boolean',
  bool_parsing: () => 'Input should be a valid boolean, unable to interpret input',
  greater_than_equal: (c) => `Input should be greater than or equal to ${c.ge}`,
  less_than_equal: (c) => `Input should be less than or equal to ${c.le}`,
  list_type: () => 'Input should be a valid list',
  dict_type: () => 'Input should be a valid dictionary',
  model_attributes_type: () => 'Input should be a valid dictionary or object to extract fields from',
  too_short: (c) =>
    `${c.field_type} should have at least ${c.min_length} item${plural(c.min_length)} after validation, not ${c.actual_length}`,
  too_long: (c) =>
    `${c.field_type} should have at most ${c.max_length} item${plural(c.max_length)} after validation, not ${c.actual_length}`,
  enum: (c) => `Input should be ${c.expected}`,
  literal_error: (c) => `Input should be ${c.expected}`,
  uuid_type: () => 'UUID input should be a string, bytes or UUID object',
  uuid_parsing: (c) => `Input should be a valid UUID, ${c.error}`,
  datetime_type: () => 'Input should be a valid datetime',
  datetime_from_date_parsing: (c) => `Input should be a valid datetime or date, ${c.error}`,
  timezone_aware: () => 'Input should have timezone info',
  json_invalid: () => 'JSON decode error',
  extra_forbidden: () => 'Extra inputs are not permitted',
};

/** Error types whose ctx pydantic-core keeps out of the error it reports. */
const CTX_HIDDEN = new Set(['timezone_aware']);

/** pydantic-core's words for an error type and its ctx: for a 422 item whose shape is built elsewhere. */
export function pydanticMessage(type: string, ctx: Record<string, unknown> = {}): string {
  const message = MESSAGES[type];
  if (!message) throw new Error(`no Pydantic message for error type ${type}`);
  return message(ctx);
}

/** The msg of a `ValueError` raised by an after-validator, as Pydantic words it. */
export const valueErrorMessage = (reason: string): string => `Value error, ${reason}`;

/** One item of a 422 body, in FastAPI's key order (type, loc, msg, input, ctx). */
export function pydanticIssue(
  type: string,
  loc: (string | number)[],
  input: unknown,
  ctx?: Record<string, unknown>,
): ValidationIssue {
  const issue: ValidationIssue = { type, loc, msg: pydanticMessage(type, ctx), input };
  if (ctx && Object.keys(ctx).length > 0 && !CTX_HIDDEN.has(type)) issue.ctx = ctx;
  return issue;
}

/**
 * A `ValueError` raised by a validator: FastAPI encodes the exception object in ctx as `{}`, so that is what
 * a client of a FastAPI service sees.
 */
export function valueErrorIssue(loc: (string | number)[], input: unknown, reason: string): ValidationIssue {
  return { type: 'value_error', loc, msg: valueErrorMessage(reason), input, ctx: { error: {} } };
}

/** The 422 for a request body that is not valid JSON: where Python's decoder stopped, and its words. */
export function jsonInvalidIssue(message: string, position: number): ValidationIssue {
  return pydanticIssue('json_invalid', ['body', position], {}, { error: message });
}
