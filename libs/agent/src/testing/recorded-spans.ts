import { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * Registers a tracer provider for a spec file and answers the exporter holding the spans it ended: emptied after
 * each test, the provider shut down after the file.
 */
export function recordSpans(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  afterEach(() => exporter.reset());
  afterAll(() => provider.shutdown());
  return exporter;
}

/** A prompt of one user message saying `text`. */
export const said = (text: string): LanguageModelV3Prompt => [
  { role: 'user', content: [{ type: 'text', text }] },
];
