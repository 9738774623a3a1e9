import Fastify from 'fastify';
import { InvalidInputError } from '@app/contracts';
import { bodyParseError, jsonBodyParser } from './json-body';

function parse(text: string): Promise<unknown> {
  const parser = jsonBodyParser(Fastify());
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, value?: unknown) => (error ? reject(error) : resolve(value));
    void (
      parser as (request: never, body: Buffer, done: (error: Error | null, value?: unknown) => void) => void
    )({} as never, Buffer.from(text), done);
  });
}

describe('jsonBodyParser', () => {
  it('parses JSON', async () => {
    await expect(parse('{"a": [1, "b"]}')).resolves.toEqual({ a: [1, 'b'] });
  });

  it('answers malformed JSON with json_invalid at the position where it broke', async () => {
    const error = await parse('{"a": 1,, }').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues).toEqual([
      {
        loc: ['body', 8],
        msg: 'JSON decode error',
        type: 'json_invalid',
        input: {},
        ctx: { error: expect.stringContaining('position 8') },
      },
    ]);
  });

  it('answers truncated JSON at its end', () => {
    expect(bodyParseError('{"a": ').issues[0]).toMatchObject({ loc: ['body', 6], type: 'json_invalid' });
  });

  it('answers an empty body as missing', async () => {
    const error = (await parse('  ').catch((e: unknown) => e)) as InvalidInputError;
    expect(error.issues).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
  });

  it('refuses prototype poisoning', async () => {
    const error = (await parse('{"__proto__": {"admin": true}}').catch(
      (e: unknown) => e,
    )) as InvalidInputError;
    expect(error.issues[0]).toMatchObject({ type: 'json_invalid' });
  });
});
