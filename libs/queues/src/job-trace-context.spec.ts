import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { DelayedError, Job } from 'bullmq';
import { processInJobTrace, TracedJobData, withTraceContext } from './job-trace-context';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracer = trace.getTracer('test');

afterEach(() => exporter.reset());
afterAll(() => provider.shutdown());

/** What the processors read of a BullMQ job. */
const jobWith = (data: TracedJobData & { messageId: string }) =>
  ({ name: 'run-reply', id: data.messageId, attemptsMade: 0, data }) as unknown as Job<TracedJobData>;

describe('job trace context', () => {
  it('carries the enqueuing span into the job and runs the work in a consumer span under it', async () => {
    const enqueued = tracer.startActiveSpan('POST', (span) => {
      span.end();
      return { data: withTraceContext({ messageId: 'm1' }), span };
    });
    expect(enqueued.data.traceContext?.traceparent).toContain(enqueued.span.spanContext().traceId);

    let activeInWork: string | undefined;
    await processInJobTrace('agent-run', jobWith(enqueued.data), async () => {
      activeInWork = trace.getActiveSpan()?.spanContext().spanId;
    });

    const consumer = exporter.getFinishedSpans().find((span) => span.name === 'process agent-run')!;
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.spanContext().traceId).toBe(enqueued.span.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(enqueued.span.spanContext().spanId);
    expect(consumer.attributes).toMatchObject({
      'messaging.destination.name': 'agent-run',
      'messaging.message.id': 'm1',
      'messaging.bullmq.attempt': 1,
    });
    expect(activeInWork).toBe(consumer.spanContext().spanId);
  });

  it('adds nothing to the data outside a trace, and such a job starts its own', async () => {
    const data = withTraceContext({ messageId: 'm2' });
    expect(data).toEqual({ messageId: 'm2' });
    await processInJobTrace('agent-run', jobWith(data), async () => undefined);
    const [consumer] = exporter.getFinishedSpans();
    expect(consumer.parentSpanContext).toBeUndefined();
  });

  it('marks a failed job by its error class only, and a job moved to the delayed set as no failure', async () => {
    const job = jobWith({ messageId: 'm3' });
    await expect(
      processInJobTrace('agent-run', job, () => Promise.reject(new TypeError('secret user text'))),
    ).rejects.toThrow(TypeError);
    await expect(
      processInJobTrace('agent-run', job, () => Promise.reject(new DelayedError())),
    ).rejects.toThrow(DelayedError);
    const [failed, delayed] = exporter.getFinishedSpans();
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes['error.type']).toBe('TypeError');
    expect(JSON.stringify([failed.attributes, failed.events, failed.status])).not.toContain(
      'secret user text',
    );
    expect(delayed.status.code).toBe(SpanStatusCode.UNSET);
    expect(delayed.attributes['messaging.bullmq.delayed']).toBe(true);
  });
});
