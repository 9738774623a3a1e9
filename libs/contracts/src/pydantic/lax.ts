/*
 * Pydantic v2's lax-mode conversions (pydantic-core `src/input/input_python.rs`, `shared.rs`) for the values a
 * FastAPI service sees: JSON decoded by Python, and query or path parameters as strings. Each returns the
 * converted value, or the error type that pydantic-core raises for the input.
 */

export type Lax<T> = { ok: true; value: T } | { ok: false; type: string; ctx?: Record<string, unknown> };

const fail = (type: string, ctx?: Record<string, unknown>): Lax<never> => ({
  ok: false,
  type,
  ...(ctx ? { ctx } : {}),
});

/** pydantic-core refuses to parse an integer from a longer string (`int_parsing_size`). */
const MAX_INT_STRING = 4300;
/** Digits with single underscores between them, and an optional run of decimal zeros (`"4.0"` is 4). */
const INT_STRING = /^([+-]?\d+(?:_\d+)*)(?:\.0*)?$/;

/** An integer; `big` keeps a value past 2**53 exact for the bounds check. */
interface LaxInt {
  number: number;
  big: bigint;
}

export function laxInt(input: unknown): Lax<LaxInt> {
  if (typeof input === 'boolean') return { ok: true, value: { number: Number(input), big: BigInt(input) } };
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return fail('finite_number');
    if (!Number.isInteger(input)) return fail('int_from_float');
    return { ok: true, value: { number: input, big: BigInt(input) } };
  }
  if (typeof input === 'string') {
    const text = input.trim();
    if (text.length > MAX_INT_STRING) return fail('int_parsing_size');
    const match = INT_STRING.exec(text);
    if (!match) return fail('int_parsing');
    const big = BigInt(match[1].replace(/_/g, ''));
    return { ok: true, value: { number: Number(big), big } };
  }
  return fail('int_type');
}

/** Python's float() text: digits with single underscores between them, a fraction, an exponent. */
const FLOAT_STRING =
  /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
const FLOAT_WORDS: Record<string, number> = {
  inf: Infinity,
  infinity: Infinity,
  nan: NaN,
};

/** A float: an integer or a boolean becomes one, as does a string Python's float() reads (`float_parsing`). */
export function laxFloat(input: unknown): Lax<number> {
  if (typeof input === 'boolean') return { ok: true, value: Number(input) };
  if (typeof input === 'number') return { ok: true, value: input };
  if (typeof input === 'string') {
    const text = input.trim();
    const sign = text.startsWith('-') ? -1 : 1;
    const word = FLOAT_WORDS[text.replace(/^[+-]/, '').toLowerCase()];
    if (word !== undefined) return { ok: true, value: sign * word };
    if (!FLOAT_STRING.test(text)) return fail('float_parsing');
    return { ok: true, value: Number(text.replace(/_/g, '')) };
  }
  return fail('float_type');
}

const TRUE_STRINGS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_STRINGS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

export function laxBool(input: unknown): Lax<boolean> {
  if (typeof input === 'boolean') return { ok: true, value: input };
  if (typeof input === 'number') {
    if (!Number.isInteger(input)) return fail('bool_type');
    if (input === 0 || input === 1) return { ok: true, value: input === 1 };
    return fail('bool_parsing');
  }
  if (typeof input === 'string') {
    const lower = input.toLowerCase();
    if (TRUE_STRINGS.has(lower)) return { ok: true, value: true };
    if (FALSE_STRINGS.has(lower)) return { ok: true, value: false };
    return fail('bool_parsing');
  }
  return fail('bool_type');
}

const HEX = /^[0-9a-fA-F]$/;
const GROUP_STARTS = [0, 9, 14, 19, 24];
const GROUP_LENGTHS = [8, 4, 4, 4, 12];

/**
 * Why the `uuid` crate refuses a string, in its words (`InvalidUuid::into_err`), which pydantic-core puts after
 * "Input should be a valid UUID, ".
 */
function uuidProblem(input: string): string {
  let body = input;
  let offset = 0;
  let simple = true;
  if (input.length >= 2 && input.startsWith('{') && input.endsWith('}')) {
    body = input.slice(1, -1);
    offset = 1;
    simple = false;
  } else if (input.startsWith('urn:uuid:')) {
    body = input.slice('urn:uuid:'.length);
    offset = 'urn:uuid:'.length;
    simple = false;
  }
  const bounds: number[] = [];
  let hyphens = 0;
  let index = 0;
  for (const character of body) {
    if (character === '-') {
      if (hyphens < 4) bounds.push(index);
      hyphens += 1;
    } else if (!HEX.test(character)) {
      return `invalid character: found \`${character}\` at ${index + offset + 1}`;
    }
    index += Buffer.byteLength(character);
  }
  if (hyphens === 0 && simple) {
    return `invalid length: expected length 32 for simple format, found ${Buffer.byteLength(input)}`;
  }
  if (hyphens !== 4) return `invalid group count: expected 5, found ${hyphens + 1}`;
  for (let group = 0; group < 4; group += 1) {
    if (bounds[group] !== GROUP_STARTS[group + 1] - 1) {
      return `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${bounds[group] - GROUP_STARTS[group]}`;
    }
  }
  return `invalid group length in group 4: expected 12, found ${Buffer.byteLength(input) - GROUP_STARTS[4]}`;
}

const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SIMPLE = /^[0-9a-fA-F]{32}$/;

/** A UUID in any form Python's `uuid.UUID` takes from a string, answered in its canonical lower-case form. */
export function laxUuid(input: unknown): Lax<string> {
  if (typeof input !== 'string') return fail('uuid_type');
  let body = input;
  if (input.length === 38 && input.startsWith('{') && input.endsWith('}')) body = input.slice(1, -1);
  else if (input.length === 45 && input.startsWith('urn:uuid:')) body = input.slice(9);
  let hex: string | null = null;
  if (body.length === 32 && body === input && SIMPLE.test(body)) hex = body;
  else if (body.length === 36 && HYPHENATED.test(body)) hex = body.replace(/-/g, '');
  if (hex === null) return fail('uuid_parsing', { error: uuidProblem(input) });
  const lower = hex.toLowerCase();
  return {
    ok: true,
    value: `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}`,
  };
}

/** RFC 3339 / ISO 8601 date-times as speedate reads them; a timezone is required (`AwareDatetime`). */
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

export function laxAwareDatetime(input: unknown): Lax<string> {
  if (typeof input !== 'string') return fail('datetime_type');
  if (input.length < 10) return fail('datetime_from_date_parsing', { error: 'input is too short' });
  const match = DATETIME.exec(input);
  if (!match || Number.isNaN(Date.parse(input.replace(' ', 'T')))) {
    return fail('datetime_from_date_parsing', { error: 'invalid datetime' });
  }
  if (!match[8]) return fail('timezone_aware');
  return { ok: true, value: input };
}
