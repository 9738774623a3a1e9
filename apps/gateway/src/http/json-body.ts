import { FastifyBodyParser, FastifyInstance } from 'fastify';
import { BadRequestError, InvalidInputError, jsonInvalidIssue } from '@app/contracts';
import { pythonJsonError } from './json-body.python-errors';

/**
 * Deepest nesting of arrays and objects a body may have. Python's decoder (FastAPI) manages about 1000 before
 * its recursion limit; 256 is far beyond any request of the API and keeps every recursive walk of the body
 * (validation, persistence) far from the stack's end.
 */
const MAX_JSON_DEPTH = 256;

/** FastAPI's answer to a body it cannot decode for a reason other than a JSON syntax error (400). */
const BODY_PARSE_FAILED = 'There was an error parsing the body';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A body that could not be read, kept as the request's body instead of failing the request at once: Fastify
 * reads a body before any guard runs, so an early answer would tell a caller with no right to the route (no
 * credential, or a token on a route closed to tokens) about its body first. ApiValidationInterceptor, which runs
 * after the guards, answers it.
 */
export class UnreadableBody {
  constructor(readonly error: BadRequestError | InvalidInputError) {}
}

/**
 * How deep arrays and objects nest, counted without parsing (strings skipped). Python's decoder gives up past
 * its recursion limit (about 1000), which FastAPI answers with a 400; the gateway refuses well before any
 * recursive code of its own can exhaust the stack.
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const c = text[index];
    if (inString) {
      if (c === '\\') index += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === '}' || c === ']') {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * A JSON body as FastAPI reads it: bytes that are not UTF-8, or nesting past its limit, are a 400
 * `{"detail": "There was an error parsing the body"}`; JSON that does not parse is a 422 `json_invalid` at the
 * position and in the words of Python's decoder (both answered once the caller is authenticated: UnreadableBody);
 * an empty body is left absent (the pipe says "missing").
 */
export function jsonBodyParser(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  // `__proto__` and `constructor.prototype` keys are dropped, as unknown fields are, never merged.
  const secure = fastify.getDefaultJsonParser('remove', 'remove');
  return (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(null, new UnreadableBody(new BadRequestError(BODY_PARSE_FAILED)));
    }
    if (text.length === 0) return done(null, undefined);
    if (nestingDepth(text) > MAX_JSON_DEPTH) {
      return done(null, new UnreadableBody(new BadRequestError(BODY_PARSE_FAILED)));
    }
    secure(request, text, (error, value) => {
      if (!error) return done(null, value);
      const python = pythonJsonError(text) ?? { message: 'Expecting value', position: 0 };
      done(
        null,
        new UnreadableBody(new InvalidInputError([jsonInvalidIssue(python.message, python.position)])),
      );
    });
  };
}
