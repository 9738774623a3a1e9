import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { loadSettingsOrExit } from '@app/config';

let provider: NodeTracerProvider | undefined;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set, exporting spans with OTLP/HTTP.
 * Each main.ts calls it before its other imports: the instrumentations patch http, undici, pg and ioredis as
 * they load, so those must not be loaded yet. Unset, nothing of the SDK is even required: the spans written by
 * hand (jobs, model and tool calls) go to the API's no-op tracer.
 */
export function startTracing(defaultServiceName: string): void {
  const settings = loadSettingsOrExit();
  if (!settings.otelExporterOtlpEndpoint || provider) return;
  // Required here, not imported: a process without tracing never loads the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const resources = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(
      resources.resourceFromAttributes({ 'service.name': settings.otelServiceName ?? defaultServiceName }),
    );
  const exporter = new OTLPTraceExporter({
    url: `${settings.otelExporterOtlpEndpoint.replace(/\/+$/, '')}/v1/traces`,
  });
  provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // The async-hooks context manager and the W3C trace context propagator the job data carries.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Probes and metrics scrapes would be a trace each, every few seconds.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => isOpsPath(request.url),
        // The request id the logs carry (the caller's or the one the gateway made), to go from a trace to its
        // log lines and back. Read when the response ends: by then the gateway has set it on the request.
        applyCustomAttributesOnSpan: (span, request) => {
          const requestId = 'headers' in request ? request.headers['x-request-id'] : undefined;
          if (typeof requestId === 'string')
            span.setAttribute('http.request.header.x-request-id', [requestId]);
        },
      }),
      new UndiciInstrumentation(),
      // Without a parent these are the consumers' polling and the sweeps: noise, not requests.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
}

/** Exports the spans still buffered; part of a graceful stop. */
export async function stopTracing(): Promise<void> {
  await provider?.shutdown();
  provider = undefined;
}

function isOpsPath(url: string | undefined): boolean {
  return url !== undefined && (url.startsWith('/health') || url.startsWith('/metrics'));
}
