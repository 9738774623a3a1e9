/*
 * Where and why Python's json decoder (the C scanner of CPython 3.11, `Modules/_json.c`) stops on a text that
 * is not JSON: FastAPI puts that position and message in its `json_invalid` error. Positions count code points,
 * as Python's str does. Only run on a text JavaScript's JSON.parse refused, to explain it in Python's words.
 */

interface PythonJsonError {
  message: string;
  position: number;
}

class Stop {
  constructor(
    readonly message: string,
    readonly position: number,
  ) {}
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

class PythonJsonScanner {
  constructor(private readonly s: string[]) {}

  private skip(index: number): number {
    while (index < this.s.length && WHITESPACE.has(this.s[index])) index += 1;
    return index;
  }

  /** `json.loads`: one value, then only whitespace ("Extra data"). */
  document(): PythonJsonError | null {
    try {
      const end = this.value(this.skip(0));
      const rest = this.skip(end);
      if (rest !== this.s.length) throw new Stop('Extra data', rest);
      return null;
    } catch (error) {
      if (error instanceof Stop) return { message: error.message, position: error.position };
      throw error;
    }
  }

  private word(index: number, word: string): boolean {
    return this.s.slice(index, index + word.length).join('') === word;
  }

  /** `scan_once`: a value starting at index; answers the index after it. */
  private value(index: number): number {
    const c = this.s[index];
    if (c === '"') return this.string(index + 1);
    if (c === '{') return this.object(index + 1);
    if (c === '[') return this.array(index + 1);
    for (const word of ['null', 'true', 'false']) if (this.word(index, word)) return index + word.length;
    return this.number(index);
  }

  private number(start: number): number {
    let index = start;
    if (this.s[index] === '-') index += 1;
    if (this.s[index] !== undefined && this.s[index] >= '1' && this.s[index] <= '9') {
      while (isDigit(this.s[index])) index += 1;
    } else if (this.s[index] === '0') {
      index += 1;
    } else {
      throw new Stop('Expecting value', start);
    }
    if (this.s[index] === '.' && isDigit(this.s[index + 1])) {
      index += 2;
      while (isDigit(this.s[index])) index += 1;
    }
    if (this.s[index] === 'e' || this.s[index] === 'E') {
      const exponent = index;
      index += 1;
      if (this.s[index] === '-' || this.s[index] === '+') index += 1;
      while (isDigit(this.s[index])) index += 1;
      if (!isDigit(this.s[index - 1])) index = exponent;
    }
    return index;
  }

  /** `scanstring`: index is just after the opening quote. */
  private string(index: number): number {
    const begin = index - 1;
    for (;;) {
      if (index >= this.s.length) throw new Stop('Unterminated string starting at', begin);
      const c = this.s[index];
      if (c === '"') return index + 1;
      if (c.charCodeAt(0) <= 0x1f) throw new Stop('Invalid control character at', index);
      if (c !== '\\') {
        index += 1;
        continue;
      }
      index += 1;
      if (index >= this.s.length) throw new Stop('Unterminated string starting at', begin);
      const escape = this.s[index];
      if (escape !== 'u') {
        if (!ESCAPES.has(escape)) throw new Stop('Invalid \\escape', index - 1);
        index += 1;
        continue;
      }
      index += 1;
      if (index + 4 >= this.s.length) throw new Stop('Invalid \\uXXXX escape', index - 1);
      for (let digit = 0; digit < 4; digit += 1) {
        if (!isHex(this.s[index + digit])) throw new Stop('Invalid \\uXXXX escape', index - 1);
      }
      index += 4;
    }
  }

  private object(index: number): number {
    index = this.skip(index);
    if (this.s[index] === '}') return index + 1;
    for (;;) {
      if (this.s[index] !== '"') throw new Stop('Expecting property name enclosed in double quotes', index);
      index = this.skip(this.string(index + 1));
      if (this.s[index] !== ':') throw new Stop("Expecting ':' delimiter", index);
      index = this.value(this.skip(index + 1));
      index = this.skip(index);
      if (this.s[index] === '}') return index + 1;
      if (this.s[index] !== ',') throw new Stop("Expecting ',' delimiter", index);
      index = this.skip(index + 1);
    }
  }

  private array(index: number): number {
    index = this.skip(index);
    if (this.s[index] === ']') return index + 1;
    for (;;) {
      index = this.skip(this.value(index));
      if (this.s[index] === ']') return index + 1;
      if (this.s[index] !== ',') throw new Stop("Expecting ',' delimiter", index);
      index = this.skip(index + 1);
    }
  }
}

/** Python's decode error for a text, or null when Python would have decoded it. */
export function pythonJsonError(text: string): PythonJsonError | null {
  return new PythonJsonScanner(Array.from(text)).document();
}
