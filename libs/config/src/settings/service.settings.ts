import { IsIn, IsString, Matches } from 'class-validator';
import { HttpUrl, OnOff, Optional, WholeNumber } from '../setting-kinds';

/** The processes themselves: where they listen, how they log, trace, start and stop. */
export class ServiceSettings {
  @WholeNumber({ min: 0, max: 65535 })
  port = 3000;

  @WholeNumber({ min: 0, max: 65535 })
  storagePort = 3001;

  @IsString()
  host = '0.0.0.0';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  logLevel = 'info';

  /**
   * OTLP/HTTP collector base URL (the SDK posts to `<url>/v1/traces`). Unset: no tracing at all, no SDK started.
   * The SDK's other standard variables (OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, …) are read by the SDK itself.
   */
  @Optional(HttpUrl())
  otelExporterOtlpEndpoint?: string;

  /** The traces' service name; default `parley-gateway` or `parley-worker` by process. */
  @Optional(IsString())
  otelServiceName?: string;

  /** Runs migrations when a process starts (used by `npm start`; containers run `npm run migrate` once). */
  @OnOff()
  migrateOnStart = false;

  /** Port of the worker's health and metrics listener (/health/live, /health/ready, /metrics); 0 turns it off. */
  @WholeNumber({ min: 0, max: 65535 })
  workerHealthPort = 3002;

  /** On SIGTERM a process stops taking work and finishes what is in flight; after this long it exits anyway. */
  @WholeNumber({ min: 100 })
  shutdownTimeoutMs = 10000;

  /**
   * How far V8 lets the heap grow past what survived its last full collection before it collects again, in
   * percent; 0 leaves V8's own factor, which adapts up to 300 %. Under hundreds of live streams a request's
   * objects outlive the young generation and die in the old one, so the heap swells between full collections;
   * a lower percentage holds memory down for more CPU (README, HEAP_GROWTH_PERCENT).
   */
  @WholeNumber({ min: 0, max: 300 })
  heapGrowthPercent = 0;

  /** The deployment tag the OpenAPI document reports as its version; default `<package version>+<commit>`. */
  @Optional(
    IsString(),
    Matches(/^[0-9A-Za-z.+_-]{1,64}$/, { message: 'must be 1-64 letters, digits or . + _ -' }),
  )
  deploymentTag?: string;
}
