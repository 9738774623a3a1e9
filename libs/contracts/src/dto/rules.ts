import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { Type } from 'class-transformer';

/*
 * The rules of a request DTO, named as Pydantic's constraints. They are class-validator decorators, so a DTO
 * stays one plain class that @nestjs/swagger and class-validator both read; the gateway's validation pipe reads
 * the same metadata and checks it with Pydantic's rules (libs/contracts/src/pydantic, README there).
 * Rules class-validator has no word for (nullable, a union) are `ValidateBy` markers the pipe recognises by name.
 */

/** `max_length` of a string: `string_too_long`. */
export const MaxChars = (max: number, options?: ValidationOptions) => MaxLength(max, options);
/** `min_length` of a string: `string_too_short`. */
export const MinChars = (min: number, options?: ValidationOptions) => MinLength(min, options);
/**
 * `pattern` of a string: `string_pattern_mismatch`. Give the source text, as Pydantic reports it; it must also
 * compile in Rust's regex crate (no look-around), as pydantic-core's does.
 */
export const Pattern = (source: string, options?: ValidationOptions) =>
  Matches(new RegExp(source), {
    ...options,
    context: { source },
  });
/**
 * A pattern said in words: a value off it is the `value_error` of an after-validator (`Value error, <reason>`),
 * for a pattern too long to help the person who reads the 422 (Pydantic's own error quotes the whole pattern).
 */
export const PatternRule = (source: string, reason: string, options?: ValidationOptions) =>
  Matches(new RegExp(source), {
    ...options,
    context: { source, reason },
  });
/** The largest value of a PostgreSQL `integer` column: the bound of a count stored in one, or kept in jsonb. */
export const PG_INTEGER_MAX = 2_147_483_647;
/** The largest integer a JSON number holds exactly; below PostgreSQL's `bigint` maximum. */
export const EXACT_INTEGER_MAX = Number.MAX_SAFE_INTEGER;

/** `ge` of an integer: `greater_than_equal`. */
export const Ge = (min: number, options?: ValidationOptions) => Min(min, options);
/**
 * `le` of an integer: `less_than_equal`. Every integer and number field has one (the schema refuses a DTO
 * without), so no value past its column's range reaches PostgreSQL as a 500.
 */
export const Le = (max: number, options?: ValidationOptions) => Max(max, options);
/** A Python `Enum` of strings: `enum`, listing the values in the order given (the spec's order). */
export const OneOf = (values: readonly string[], options?: ValidationOptions) =>
  IsIn(values as string[], options);
/** `max_length` of a list: `too_long`. */
export const MaxItems = (max: number, options?: ValidationOptions) => ArrayMaxSize(max, options);
/** `min_length` of a list: `too_short`. */
export const MinItems = (min: number, options?: ValidationOptions) => ArrayMinSize(min, options);
/** Items unique: a `value_error` after the items are valid, as a Pydantic after-validator raises it. */
export const UniqueItems = (options?: ValidationOptions) => ArrayUnique(undefined, options);

export const NULLABLE = 'pydanticNullable';

/**
 * `X | None`: null is a value. Without it, null is refused with the field type's error, as Pydantic does for a
 * field that only has a default (`max_steps: int = 60`). Pair it with `@IsOptional()` for `X | None = None`.
 */
export const Nullable = () =>
  ValidateBy({ name: NULLABLE, validator: { validate: () => true, defaultMessage: () => '' } });

/**
 * Several rules as one decorator, for a field whose rules other fields share: applied as if stacked above the
 * property in this order (a decorator stack runs from the bottom up), so the validation pipe and the OpenAPI
 * document read the same metadata as from the stack written out.
 */
export const Rules =
  (...rules: PropertyDecorator[]): PropertyDecorator =>
  (target, property) => {
    for (const rule of [...rules].reverse()) rule(target, property);
  };

/** `conint(ge=1, le=PG_INTEGER_MAX) | None = None`: a count or a version, stored in an `integer` column. */
export const OptionalPositiveInt = () => Rules(IsOptional(), Nullable(), IsInt(), Ge(1), Le(PG_INTEGER_MAX));

/** `list[constr(...)]` of at most `max` items: each a string, then each checked by `itemRules` (given `each: true`). */
export const StringList = (max: number, ...itemRules: PropertyDecorator[]) =>
  Rules(IsArray(), MaxItems(max), IsString({ each: true }), ...itemRules);

/** `list[UUID]` of at most `max` ids. */
export const IdList = (max: number) => Rules(IsArray(), IsUUID('all', { each: true }), MaxItems(max));

export const LITERAL_OR_PATTERN = 'pydanticLiteralOrPattern';

/**
 * `Literal[values...] | constr(pattern=...)`: Pydantic's smart union. A value matching neither is reported once
 * per member, each under the member's tag in `loc` (`literal['a','b']`, `constrained-str`).
 */
export const LiteralOrPattern = (values: readonly string[], source: string, options?: ValidationOptions) =>
  ValidateBy(
    {
      name: LITERAL_OR_PATTERN,
      constraints: [values, source],
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && (values.includes(value) || new RegExp(source).test(value)),
        defaultMessage: () => `$property must be one of ${values.join(', ')} or match ${source}`,
      },
    },
    options,
  );

export const NOT_ACCEPTED = 'pydanticNotAccepted';

/**
 * A field a client may expect but this request does not take: sent, it is a 422 `extra_forbidden` (Pydantic's
 * answer to an extra field under `extra="forbid"`) instead of being silently ignored as other unknown fields
 * are. Pair it with `@IsOptional()`; it is left out of the OpenAPI document.
 */
export const NotAccepted = () =>
  ValidateBy({ name: NOT_ACCEPTED, validator: { validate: () => true, defaultMessage: () => '' } });

export const MODEL = 'pydanticModel';

/**
 * A nested model (`message: HumanMessage`): an object validated field by field; anything else is
 * `model_attributes_type`.
 */
export function Model(type: () => new () => object, options?: ValidationOptions): PropertyDecorator {
  return (target, property) => {
    ValidateNested(options)(target, property);
    Type(type)(target, property as string);
    ValidateBy(
      {
        name: MODEL,
        constraints: [type],
        validator: { validate: () => true, defaultMessage: () => '' },
      },
      options,
    )(target, property as string);
  };
}

/** `Model | None = None`: a nested model that may be left out or null. */
export const OptionalModel = (type: () => new () => object) => Rules(IsOptional(), Nullable(), Model(type));

export const REFUSED_FIELDS = 'pydanticRefusedFields';

/** What `@RefuseFields` records on a class. */
export interface RefusedFields {
  fields: readonly string[];
  reason: string;
}

/**
 * A model's `mode='before'` validator that raises when the object holds any of `fields`: one `value_error` at
 * the object itself, and its fields are not validated. For fields the API once took and now refuses rather than
 * ignores like any unknown field. The error's input is only the refused fields, so nothing else the object
 * carries (a secret beside them) is echoed.
 */
export const RefuseFields =
  (fields: readonly string[], reason: string): ClassDecorator =>
  (target) =>
    Reflect.defineMetadata(REFUSED_FIELDS, { fields, reason } satisfies RefusedFields, target);
