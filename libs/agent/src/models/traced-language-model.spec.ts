import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BuiltinModel } from './builtin.model';
import { traceModelCalls } from './traced-language-model';
import { recordSpans, said } from '../testing/recorded-spans';

const exporter = recordSpans();

async function stream(text: string, partsToRead = Infinity) {
  const model = traceModelCalls(new BuiltinModel(), 'builtin');
  const { stream } = await model.doStream({ prompt: said(text), temperature: 0.3, maxOutputTokens: 50 });
  const reader = stream.getReader();
  for (let read = 0; read < partsToRead; read++) if ((await reader.read()).done) return;
  await reader.cancel();
}

describe('traceModelCalls', () => {
  it('spans a streamed call as `chat <model>` with the GenAI attributes and its tokens', async () => {
    await stream('/say one two three');
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('chat builtin');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'parley',
      'gen_ai.system': 'parley',
      'gen_ai.request.model': 'builtin',
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.max_tokens': 50,
      'gen_ai.usage.input_tokens': 4,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks the span failed on an error part, by the error class only', async () => {
    await stream('/fail');
    const [span] = exporter.getFinishedSpans();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('BuiltinModelFailure');
    expect(JSON.stringify(span.events)).not.toContain('asked to fail');
  });

  it('ends the span when the reader cancels the stream half-way', async () => {
    await stream('/say a b c d e f', 2);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['chat builtin']);
  });
});
