import { FastifyBodyParser, FastifyInstance } from 'fastify';
import { InvalidInputError, jsonInvalidIssue } from '@app/contracts';

/** The 422 for a JSON body that did not parse: "missing" when empty, else json_invalid with where it broke. */
export function bodyParseError(text: string): InvalidInputError {
  if (text.trim() === '') {
    return new InvalidInputError([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
  }
  try {
    JSON.parse(text);
    // Valid JSON that the secure parser refused: it sets __proto__ or constructor.prototype.
    return new InvalidInputError([jsonInvalidIssue('Object contains a forbidden prototype property', 0)]);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    return new InvalidInputError([jsonInvalidIssue(message, position ? Number(position[1]) : text.length)]);
  }
}

/**
 * Fastify's JSON parser (which refuses prototype poisoning), answering a body that does not parse with the
 * 422 of CONTRACTS §3 instead of Fastify's 400: its own errors lose their code on the way through Nest.
 */
export function jsonBodyParser(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const secure = fastify.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const text = body.toString('utf8');
    secure(request, text, (error, value) => {
      if (error) done(bodyParseError(text));
      else done(null, value);
    });
  };
}
