import { getMetadataStorage } from 'class-validator';
import {
  LITERAL_OR_PATTERN,
  MODEL,
  NOT_ACCEPTED,
  NULLABLE,
  REFUSED_FIELDS,
  RefusedFields,
} from '../dto/rules';

/*
 * A request DTO's class-validator metadata, read once into the shape Pydantic would have declared: each field's
 * type, whether it may be absent or null, and its constraints. The DTO stays the one description of a request.
 */

type ScalarKind = 'str' | 'int' | 'float' | 'bool' | 'uuid' | 'datetime' | 'dict';

export type TypeSchema = (
  | { kind: ScalarKind }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'literalOrPattern'; values: readonly string[]; pattern: string }
  | { kind: 'model'; model: ModelSchema }
  | { kind: 'list'; item: TypeSchema }
  | { kind: 'notAccepted' }
) & { constraints: Constraints };

export interface Constraints {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** Set: a value off `pattern` is a value_error giving this rule in words, not the pattern itself. */
  patternReason?: string;
  ge?: number;
  le?: number;
  unique?: boolean;
}

export interface FieldSchema {
  name: string;
  required: boolean;
  nullable: boolean;
  type: TypeSchema;
}

export interface ModelSchema {
  target: new () => object;
  fields: FieldSchema[];
  /** Fields whose presence fails the whole object (`@RefuseFields`). */
  refused?: RefusedFields;
}

interface Rule {
  name: string;
  each: boolean;
  constraints: unknown[];
  context?: { source?: string; reason?: string };
  conditional: boolean;
}

const SCALARS: Record<string, ScalarKind> = {
  isString: 'str',
  isInt: 'int',
  isNumber: 'float',
  isBoolean: 'bool',
  isUuid: 'uuid',
  isIso8601: 'datetime',
  isDateString: 'datetime',
  isObject: 'dict',
};

/** Rules that say something besides the type: each must be one this layer checks. */
const CONSTRAINTS = new Set([
  'minLength',
  'maxLength',
  'arrayMinSize',
  'arrayMaxSize',
  'matches',
  'min',
  'max',
  'arrayUnique',
]);
/** `ValidateNested` is what `@Model()` records for class-validator; alone it names no model. */
const NESTED = 'nestedValidation';
const MARKERS = new Set([NULLABLE, MODEL, LITERAL_OR_PATTERN, NOT_ACCEPTED, 'isIn', 'isArray', NESTED]);

const understood = (rule: Rule) =>
  rule.conditional || Boolean(SCALARS[rule.name]) || CONSTRAINTS.has(rule.name) || MARKERS.has(rule.name);

/**
 * Refuses a field whose rules this layer would not check, so a DTO cannot silently go unvalidated (a
 * class-validator rule with no Pydantic meaning here, `ValidateNested` without `@Model`, `each` off a list).
 */
function assertUnderstood(target: new () => object, field: string, rules: Rule[]): void {
  const problem = (reason: string) =>
    new Error(`${target.name}.${field}: ${reason} (see libs/contracts/README.md, "Writing a request DTO")`);
  const unknown = rules.filter((rule) => !understood(rule)).map((rule) => rule.name);
  if (unknown.length > 0) throw problem(`rules the Pydantic layer does not check: ${unknown.join(', ')}`);
  const names = new Set(rules.map((rule) => rule.name));
  if (names.has(NESTED) && !names.has(MODEL)) throw problem('ValidateNested without @Model(() => X)');
  const list = rules.some((rule) => !rule.each && rule.name === 'isArray');
  if (!list && rules.some((rule) => rule.each)) throw problem('a rule with { each: true } needs @IsArray()');
}

function constraintsOf(rules: Rule[], list: boolean): Constraints {
  const constraints: Constraints = {};
  for (const rule of rules) {
    const [first] = rule.constraints ?? [];
    switch (rule.name) {
      case 'minLength':
      case 'arrayMinSize':
        if ((rule.name === 'arrayMinSize') === list) constraints.minLength = first as number;
        break;
      case 'maxLength':
      case 'arrayMaxSize':
        if ((rule.name === 'arrayMaxSize') === list) constraints.maxLength = first as number;
        break;
      case 'matches':
        constraints.pattern = rule.context?.source ?? (first as RegExp).source;
        if (rule.context?.reason) constraints.patternReason = rule.context.reason;
        break;
      case 'min':
        constraints.ge = first as number;
        break;
      case 'max':
        constraints.le = first as number;
        break;
      case 'arrayUnique':
        constraints.unique = true;
        break;
    }
  }
  return constraints;
}

function typeOf(rules: Rule[], list: boolean): TypeSchema {
  const constraints = constraintsOf(rules, list);
  const model = rules.find((rule) => rule.name === MODEL);
  if (model) {
    const type = (model.constraints[0] as () => new () => object)();
    return { kind: 'model', model: modelSchema(type), constraints };
  }
  if (rules.some((rule) => rule.name === NOT_ACCEPTED)) return { kind: 'notAccepted', constraints };
  const union = rules.find((rule) => rule.name === LITERAL_OR_PATTERN);
  if (union) {
    const [values, pattern] = union.constraints as [readonly string[], string];
    return { kind: 'literalOrPattern', values, pattern, constraints };
  }
  const oneOf = rules.find((rule) => rule.name === 'isIn');
  if (oneOf) return { kind: 'enum', values: oneOf.constraints[0] as string[], constraints };
  const scalar = rules.find((rule) => SCALARS[rule.name]);
  if (scalar) return { kind: SCALARS[scalar.name], constraints };
  throw new Error(
    `a field needs a type rule (IsString, IsInt, IsNumber, OneOf, Model…): ${rules.map((r) => r.name)}`,
  );
}

/** How many classes up from `target` the class `declaring` is (0 for itself). */
function ancestry(declaring: unknown, target: object): number {
  let depth = 0;
  for (
    let current: unknown = target;
    current && current !== declaring;
    current = Object.getPrototypeOf(current)
  ) {
    depth += 1;
  }
  return depth;
}

const schemas = new WeakMap<object, ModelSchema>();

/** The schema of a DTO class, or null when the class declares no rules (the pipe then leaves it alone). */
export function modelSchema(target: new () => object): ModelSchema {
  const known = schemas.get(target);
  if (known) return known;
  // Fields in Pydantic's order: a base class's fields before the subclass's own.
  const metadata = [...getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)].sort(
    (a, b) => ancestry(b.target, target) - ancestry(a.target, target),
  );
  const byField = new Map<string, Rule[]>();
  for (const entry of metadata) {
    const rules = byField.get(entry.propertyName) ?? [];
    rules.push({
      name: entry.name ?? entry.type,
      each: entry.each ?? false,
      constraints: entry.constraints ?? [],
      context: entry.context as Rule['context'],
      conditional: entry.type === 'conditionalValidation',
    });
    byField.set(entry.propertyName, rules);
  }
  const fields: FieldSchema[] = [];
  for (const [name, rules] of byField) {
    assertUnderstood(target, name, rules);
    const own = rules.filter((rule) => !rule.each && !rule.conditional && rule.name !== NULLABLE);
    const isList = own.some((rule) => rule.name === 'isArray');
    const type: TypeSchema = isList
      ? {
          kind: 'list',
          item: typeOf(
            rules.filter((rule) => rule.each),
            false,
          ),
          constraints: constraintsOf(own, true),
        }
      : typeOf(own, false);
    const number = type.kind === 'list' ? type.item : type;
    if ((number.kind === 'int' || number.kind === 'float') && number.constraints.le === undefined) {
      throw new Error(
        `${target.name}.${name}: a number needs an upper bound (@Le), or a value past its column's range is a 500`,
      );
    }
    fields.push({
      name,
      required: !rules.some((rule) => rule.conditional),
      nullable: rules.some((rule) => rule.name === NULLABLE),
      type,
    });
  }
  const refused = Reflect.getMetadata(REFUSED_FIELDS, target) as RefusedFields | undefined;
  const schema: ModelSchema = { target, fields, ...(refused && { refused }) };
  schemas.set(target, schema);
  return schema;
}

/** Whether a class carries class-validator rules, i.e. is a request DTO. */
export function isRequestDto(target: unknown): target is new () => object {
  return (
    typeof target === 'function' &&
    getMetadataStorage().getTargetValidationMetadatas(target, '', true, false).length > 0
  );
}
