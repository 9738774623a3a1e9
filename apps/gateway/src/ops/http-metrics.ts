import { FastifyInstance } from 'fastify';
import { httpRequestDuration } from '@app/observability';

/**
 * Times every response into `http_request_duration_seconds`. The route label is the pattern
 * (`/chat/:thread_id`), never the raw URL, so ids do not multiply the series; unmatched URLs share one label.
 */
export function recordHttpMetrics(fastify: FastifyInstance): void {
  const duration = httpRequestDuration();
  fastify.addHook('onResponse', async (request, reply) => {
    duration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
}
