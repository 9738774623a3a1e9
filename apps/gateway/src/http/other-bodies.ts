import { IncomingMessage } from 'node:http';
import { FastifyInstance } from 'fastify';
import { PayloadTooLargeError } from '@app/contracts';

/**
 * A body of a media type no parser takes (a form, XML, …) is read as text, never answered 415: FastAPI validates
 * such a body as the bytes it is, so a JSON model answers it 422 `model_attributes_type` at ["body"], as it does
 * text/plain. Multipart (SKILL.md uploads) and JSON keep their own parsers.
 */
export function readOtherBodiesAsText(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, body, done) =>
    done(null, body),
  );
}

/** The route config (`@RouteConfig(READS_MULTIPART)`) of a route that reads a multipart body itself. */
export const READS_MULTIPART = { readsMultipart: true };

/**
 * A multipart body on a route that does not read one (every JSON route) is read as text too, as FastAPI does:
 * its JSON model then answers 422 `model_attributes_type` at ["body"] with the bytes, never `missing`. The
 * multipart parser leaves the body unread for the route's handler, so it is read here, within the same limit.
 */
export function readStrayMultipartAsText(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.addHook('preValidation', async (request) => {
    const config = request.routeOptions.config as Partial<typeof READS_MULTIPART>;
    if (!request.isMultipart() || config.readsMultipart) return;
    request.body = await textOf(request.raw, bodyLimit);
  });
}

async function textOf(stream: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError('Request body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
