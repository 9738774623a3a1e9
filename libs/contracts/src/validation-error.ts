import { ValidationError } from 'class-validator';
import { ValidationIssue } from './errors';

export type LocRoot = 'body' | 'query' | 'path' | 'header';

/**
 * Extra facts a constraint needs to be rendered in Pydantic's words. class-validator keeps a decorator's
 * arguments out of ValidationError, so our decorators pass them through `context` (see `dto/rules.ts`).
 */
export interface RuleContext {
  /** Pydantic's type, message and ctx for the failing value. */
  pydantic?: (value: unknown) => { type: string; msg: string; ctx?: Record<string, unknown> };
  /** For a rule on each item of a list: tells a failing item, so the issue points at its index. */
  failsItem?: (item: unknown) => boolean;
}

/** When a field fails several rules, the first of these that failed is the one reported (as Pydantic does). */
const PRIORITY = [
  'nestedValidation',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isIn',
  'isEnum',
];

/** Pydantic's type and message for a class-validator constraint. */
function describe(
  constraint: string,
  message: string,
  value: unknown,
  context?: RuleContext,
): Omit<ValidationIssue, 'loc' | 'input'> {
  if (context?.pydantic) return context.pydantic(value);
  switch (constraint) {
    case 'isString':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'isInt':
      return typeof value === 'string' || Number.isNaN(value)
        ? {
            type: 'int_parsing',
            msg: 'Input should be a valid integer, unable to parse string as an integer',
          }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'isNumber':
      return { type: 'float_type', msg: 'Input should be a valid number' };
    case 'isBoolean':
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'isArray':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'isObject':
      return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    case 'nestedValidation':
      return {
        type: 'model_attributes_type',
        msg: 'Input should be a valid dictionary or object to extract fields from',
      };
    case 'isUuid':
      return { type: 'uuid_parsing', msg: 'Input should be a valid UUID' };
    case 'isDateString':
    case 'isIso8601':
      return { type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime' };
    default:
      return { type: 'value_error', msg: `Value error, ${message}` };
  }
}

function issueFor(error: ValidationError, loc: (string | number)[]): ValidationIssue {
  const constraints = error.constraints ?? {};
  const failed = Object.keys(constraints);
  if (error.value === undefined && !failed.includes('nestedValidation')) {
    return { loc, msg: 'Field required', type: 'missing', input: null };
  }
  const chosen = PRIORITY.find((name) => failed.includes(name)) ?? failed[0];
  const context = error.contexts?.[chosen] as RuleContext | undefined;
  if (context?.failsItem && Array.isArray(error.value)) {
    const index = error.value.findIndex((item) => context.failsItem!(item));
    if (index >= 0) {
      const item: unknown = error.value[index];
      return { loc: [...loc, index], input: item, ...describe(chosen, constraints[chosen], item, context) };
    }
  }
  const described = describe(chosen, constraints[chosen], error.value, context);
  return { loc, input: error.value, ...described };
}

/** Flattens class-validator's tree into Pydantic-style items, one per failing field. */
export function toValidationIssues(
  errors: ValidationError[],
  root: LocRoot,
  parent: (string | number)[] = [],
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    // Items of a nested list come back with their index as the property name.
    const key =
      /^\d+$/.test(error.property) && Array.isArray(error.target) ? Number(error.property) : error.property;
    const loc = [...parent, key];
    if (error.constraints && Object.keys(error.constraints).length > 0) {
      issues.push(issueFor(error, [root, ...loc]));
    }
    if (error.children && error.children.length > 0) {
      issues.push(...toValidationIssues(error.children, root, loc));
    }
  }
  return issues;
}

/** The 422 for a request body that is not valid JSON; `position` is where parsing broke, as Pydantic's loc. */
export function jsonInvalidIssue(message: string, position = 0): ValidationIssue {
  return {
    loc: ['body', position],
    msg: 'JSON decode error',
    type: 'json_invalid',
    input: {},
    ctx: { error: message },
  };
}
