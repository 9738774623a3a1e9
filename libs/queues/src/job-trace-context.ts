import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { DelayedError, Job } from 'bullmq';
import { recordSpanFailure } from '@app/observability';

/**
 * The W3C trace context (`traceparent`, `tracestate`) of whoever enqueued a job, carried in its data so the
 * job's work continues the request's trace on whichever worker runs it. Absent when tracing is off.
 */
export interface TracedJobData {
  traceContext?: Record<string, string>;
}

/** The job data with the active trace context added (unchanged when there is none). */
export function withTraceContext<T extends object>(data: T): T & TracedJobData {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? { ...data, traceContext: carrier } : data;
}

const tracer = trace.getTracer('parley-queues');

/**
 * Runs a job's work in a consumer span (`process <queue>`, messaging conventions) whose parent is the context
 * carried in the job's data, so the work's spans join the enqueuing request's trace.
 */
export function processInJobTrace<T>(
  queue: string,
  job: Job<TracedJobData>,
  work: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(context.active(), job.data.traceContext ?? {});
  return tracer.startActiveSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'process',
        'messaging.operation.name': job.name,
        'messaging.destination.name': queue,
        'messaging.message.id': job.id ?? '',
        'messaging.bullmq.attempt': job.attemptsMade + 1,
      },
    },
    parent,
    async (span) => {
      try {
        return await work();
      } catch (error) {
        // A job moved back to the delayed set ends its attempt with DelayedError: not a failure.
        if (error instanceof DelayedError) span.setAttribute('messaging.bullmq.delayed', true);
        else recordSpanFailure(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
