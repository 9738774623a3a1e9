import { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { context, Span } from '@opentelemetry/api';
import { wrapLanguageModel } from 'ai';
import { recordModelCallResult, recordSpanFailure, startModelCallSpan } from '@app/observability';

/**
 * The model with a GenAI span (`chat <model>`) around each streamed call, from the request until the stream
 * ends, fails or is cancelled; the token counts come from the stream's `finish` part.
 * `agentModel` is the agent's setting: `builtin`, `openai:<model>`, `anthropic:<model>`.
 */
export function traceModelCalls(model: LanguageModelV3, agentModel: string): LanguageModelV3 {
  const [provider, name] = agentModel.includes(':')
    ? [agentModel.slice(0, agentModel.indexOf(':')), agentModel.slice(agentModel.indexOf(':') + 1)]
    : ['parley', agentModel];
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapStream: async ({ doStream, params }) => {
        const started = startModelCallSpan({
          provider,
          model: name,
          temperature: params.temperature,
          maxOutputTokens: params.maxOutputTokens,
        });
        try {
          const result = await context.with(started.context, doStream);
          return { ...result, stream: endSpanWithStream(result.stream, started.span) };
        } catch (error) {
          recordSpanFailure(started.span, error);
          started.span.end();
          throw error;
        }
      },
    },
  });
}

/** The same stream, ending the span with it. */
function endSpanWithStream(
  source: ReadableStream<LanguageModelV3StreamPart>,
  span: Span,
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = source.getReader();
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        recordSpanFailure(span, error);
        span.end();
        throw error;
      }
      if (next.done) {
        span.end();
        controller.close();
        return;
      }
      const part = next.value;
      if (part.type === 'finish') {
        recordModelCallResult(span, {
          inputTokens: part.usage.inputTokens.total,
          outputTokens: part.usage.outputTokens.total,
          finishReason: part.finishReason.unified,
        });
      } else if (part.type === 'error') {
        recordSpanFailure(span, part.error);
      }
      controller.enqueue(part);
    },
    async cancel(reason) {
      span.end();
      await reader.cancel(reason);
    },
  });
}
