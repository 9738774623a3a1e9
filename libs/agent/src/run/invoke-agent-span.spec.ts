import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { traceAgentInvocation, traceToolCall } from '@app/observability';
import { BuiltinModel } from '../models/builtin.model';
import { traceModelCalls } from '../models/traced-language-model';
import { recordSpans, said } from '../testing/recorded-spans';

const exporter = recordSpans();

const INVOCATION = {
  agentId: '0196f3a0-0000-7000-8000-000000000001',
  agentName: 'helper',
  agentVersion: 3,
  conversationId: '0196f3a0-0000-7000-8000-0000000000aa',
  model: 'builtin',
};

/** A reply's work as the step loop does it: a model call streamed to its end, then a tool call. */
async function replyWork(): Promise<string> {
  const model = traceModelCalls(new BuiltinModel(), 'builtin');
  const { stream } = await model.doStream({ prompt: said('/say one two') });
  const reader = stream.getReader();
  while (!(await reader.read()).done);
  return traceToolCall('clock', 'call-1', () => Promise.resolve('12:00'));
}

describe('the invoke_agent span of a reply', () => {
  it('names the agent, its version and the conversation, and is the parent of the chat and execute_tool spans', async () => {
    expect(await traceAgentInvocation(INVOCATION, replyWork)).toBe('12:00');

    const spans = exporter.getFinishedSpans();
    const agent = spans.find((span) => span.name === 'invoke_agent helper')!;
    expect(agent.kind).toBe(SpanKind.INTERNAL);
    expect(agent.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'parley',
      'gen_ai.agent.id': INVOCATION.agentId,
      'gen_ai.agent.name': 'helper',
      'gen_ai.agent.version': '3',
      'gen_ai.conversation.id': INVOCATION.conversationId,
      'gen_ai.request.model': 'builtin',
    });
    const tree = spans
      .filter((span) => span !== agent)
      .map((span) => ({ name: span.name, parent: span.parentSpanContext?.spanId }));
    expect(tree).toEqual([
      { name: 'chat builtin', parent: agent.spanContext().spanId },
      { name: 'execute_tool clock', parent: agent.spanContext().spanId },
    ]);
    expect(agent.parentSpanContext).toBeUndefined();
  });

  it('leaves out the version of an agent stored before versions, and marks a failed reply by its error class', async () => {
    const failure = traceAgentInvocation({ ...INVOCATION, agentVersion: null }, () =>
      Promise.reject(new TypeError('user text that must not be recorded')),
    );
    await expect(failure).rejects.toThrow(TypeError);
    const [agent] = exporter.getFinishedSpans();
    expect(agent.attributes).not.toHaveProperty('gen_ai.agent.version');
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.attributes['error.type']).toBe('TypeError');
  });
});
