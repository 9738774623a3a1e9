import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** One received span, flattened: its service, ids, kind and attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
}
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/**
 * A local OTLP/HTTP trace endpoint (`POST /v1/traces`, the JSON encoding the JS exporter sends), keeping every
 * span it is sent.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const json = request.headers['content-type']?.startsWith('application/json');
        if (request.method !== 'POST' || request.url !== '/v1/traces' || !json) {
          response.writeHead(415).end();
          return;
        }
        this.receive(JSON.parse(Buffer.concat(chunks).toString()) as OtlpTraceRequest);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Waits until a span matches, failing after the timeout. */
  async waitFor(match: (span: ReceivedSpan) => boolean, timeoutMs = 20000): Promise<ReceivedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching span in time; got ${this.spans.map((s) => s.name).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private receive(body: OtlpTraceRequest): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            statusCode: span.status?.code ?? 0,
          });
        }
      }
    }
  }
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
