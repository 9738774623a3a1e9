import { FastifyInstance } from 'fastify';

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
