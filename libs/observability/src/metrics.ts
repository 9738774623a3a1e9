import { collectDefaultMetrics, Counter, Histogram, register, Registry } from 'prom-client';

/**
 * Prometheus metrics live in prom-client's default registry, one per process: the gateway's HTTP histogram,
 * the process figures and whatever the worker's runtime records (it registers its own metrics there too).
 */
const metricsRegistry: Registry = register;

/** Labels every series with the app, and starts the process figures (CPU, memory, event loop lag, GC). */
export function startProcessMetrics(app: string): void {
  metricsRegistry.setDefaultLabels({ app });
  // Guarded: a second call (tests build several apps in one process) would register the same names twice.
  if (!metricsRegistry.getSingleMetric('process_cpu_user_seconds_total')) {
    collectDefaultMetrics({ register: metricsRegistry });
  }
}

/** A metric of the default registry, created once: the same name asked twice gives the same metric. */
export function counter<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new Counter<L>({ name, help, labelNames, registers: [metricsRegistry] });
}

/** A metric of the default registry, created once, as `counter`. */
export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets?: number[],
): Histogram<L> {
  const existing = metricsRegistry.getSingleMetric(name);
  if (existing) return existing as Histogram<L>;
  return new Histogram<L>({ name, help, labelNames, buckets, registers: [metricsRegistry] });
}

/** Seconds from request to response, by method, route pattern (never the raw URL) and status. */
export function httpRequestDuration(): Histogram<'method' | 'route' | 'status'> {
  return histogram(
    'http_request_duration_seconds',
    'Duration of HTTP requests, by method, route pattern and status',
    ['method', 'route', 'status'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
}

/** The exposition text and its content type, for a /metrics route. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
