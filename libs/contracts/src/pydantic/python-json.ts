import { randomUUID } from 'node:crypto';

/**
 * A float as Python's json module writes it, `2.0` where JavaScript writes `2`: a float field's bound in a
 * 422's ctx, which Pydantic keeps as the field's type. In a message it reads as JavaScript writes it (`2`), as
 * pydantic-core says it.
 */
export class PythonFloat {
  constructor(readonly value: number) {}

  toString(): string {
    return String(this.value);
  }
}

// Unique per process, so that no string a client sent (echoed as `input`) can be taken for a marked float.
const FLOAT_MARK = `python-float-${randomUUID()}:`;
const MARKED_FLOAT = new RegExp(`"${FLOAT_MARK}([^"]*)"`, 'g');

const floatText = (value: number): string =>
  Number.isInteger(value) && Math.abs(value) < 1e16 ? value.toFixed(1) : String(value);

/**
 * JSON as FastAPI writes a response (compact, non-ASCII as is: JSON.stringify's layout), with each PythonFloat
 * written as a float, so a 422 matches FastAPI's byte for byte.
 */
export function pythonJson(value: unknown): string {
  const marked = JSON.stringify(value, (_key, item: unknown) =>
    item instanceof PythonFloat ? `${FLOAT_MARK}${item.value}` : item,
  );
  return marked.replace(MARKED_FLOAT, (_match, text: string) => floatText(Number(text)));
}
