import {
  ArrayMaxSize,
  ArrayUnique,
  IsIn,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidationOptions,
} from 'class-validator';
import { RuleContext } from '../validation-error';

/**
 * class-validator rules that report in Pydantic's words (API-SPEC 2.13, CONTRACTS §3). Each passes a
 * `RuleContext` the gateway's validation pipe reads; use these instead of the bare class-validator ones
 * wherever a limit of the spec is enforced.
 */
function withContext(context: RuleContext, options?: ValidationOptions): ValidationOptions {
  return { ...options, context };
}

const quoteList = (values: readonly string[]) =>
  values.length === 1
    ? `'${values[0]}'`
    : `${values
        .slice(0, -1)
        .map((v) => `'${v}'`)
        .join(', ')} or '${values[values.length - 1]}'`;

export const MaxChars = (max: number, options?: ValidationOptions) =>
  MaxLength(
    max,
    withContext(
      {
        pydantic: () => ({
          type: 'string_too_long',
          msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`,
          ctx: { max_length: max },
        }),
        failsItem: options?.each ? (item) => typeof item === 'string' && item.length > max : undefined,
      },
      options,
    ),
  );

export const MinChars = (min: number, options?: ValidationOptions) =>
  MinLength(
    min,
    withContext(
      {
        pydantic: () => ({
          type: 'string_too_short',
          msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`,
          ctx: { min_length: min },
        }),
        failsItem: options?.each ? (item) => typeof item === 'string' && item.length < min : undefined,
      },
      options,
    ),
  );

export const Pattern = (pattern: RegExp, options?: ValidationOptions) =>
  Matches(
    pattern,
    withContext(
      {
        pydantic: () => ({
          type: 'string_pattern_mismatch',
          msg: `String should match pattern '${pattern.source}'`,
          ctx: { pattern: pattern.source },
        }),
        failsItem: options?.each ? (item) => typeof item === 'string' && !pattern.test(item) : undefined,
      },
      options,
    ),
  );

export const Ge = (min: number, options?: ValidationOptions) =>
  Min(
    min,
    withContext(
      {
        pydantic: () => ({
          type: 'greater_than_equal',
          msg: `Input should be greater than or equal to ${min}`,
          ctx: { ge: min },
        }),
      },
      options,
    ),
  );

export const Le = (max: number, options?: ValidationOptions) =>
  Max(
    max,
    withContext(
      {
        pydantic: () => ({
          type: 'less_than_equal',
          msg: `Input should be less than or equal to ${max}`,
          ctx: { le: max },
        }),
      },
      options,
    ),
  );

export const OneOf = (values: readonly string[], options?: ValidationOptions) =>
  IsIn(
    values as string[],
    withContext(
      {
        pydantic: () => ({
          type: 'enum',
          msg: `Input should be ${quoteList(values)}`,
          ctx: { expected: quoteList(values) },
        }),
        failsItem: options?.each ? (item) => !values.includes(item as string) : undefined,
      },
      options,
    ),
  );

export const MaxItems = (max: number, options?: ValidationOptions) =>
  ArrayMaxSize(
    max,
    withContext(
      {
        pydantic: (value) => {
          const actual = Array.isArray(value) ? value.length : 0;
          return {
            type: 'too_long',
            msg: `List should have at most ${max} item${max === 1 ? '' : 's'} after validation, not ${actual}`,
            ctx: { field_type: 'List', max_length: max, actual_length: actual },
          };
        },
      },
      options,
    ),
  );

export const UniqueItems = (options?: ValidationOptions) =>
  ArrayUnique(
    undefined,
    withContext(
      { pydantic: () => ({ type: 'value_error', msg: 'Value error, list items must be unique' }) },
      options,
    ),
  );
