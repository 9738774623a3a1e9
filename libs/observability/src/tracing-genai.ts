import { Attributes, Context, context, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * Spans of model and tool calls with the OpenTelemetry GenAI semantic conventions. No official instrumentation
 * covers them (the step loop calls the AI SDK's `doStream` itself, below `streamText`'s telemetry), so these
 * two helpers write them. Messages, prompts and tool arguments are never recorded: they are user content.
 */
const tracer = trace.getTracer('parley-agent');

interface ModelCall {
  /** `openai`, `anthropic`, … (`gen_ai.provider.name`). */
  provider: string;
  /** The model as asked for (`gen_ai.request.model`). */
  model: string;
  temperature?: number;
  maxOutputTokens?: number;
}

/**
 * Starts the span of one model call (`chat <model>`); the caller makes the call in the returned context, so
 * the HTTP request to the vendor is the span's child, and ends the span when the streamed answer ends.
 */
export function startModelCallSpan(call: ModelCall): { span: Span; context: Context } {
  const span = tracer.startSpan(`chat ${call.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': call.provider,
      // The attribute's name before semantic conventions 1.37, which many backends still read.
      'gen_ai.system': call.provider,
      'gen_ai.request.model': call.model,
      ...(call.temperature !== undefined && { 'gen_ai.request.temperature': call.temperature }),
      ...(call.maxOutputTokens !== undefined && { 'gen_ai.request.max_tokens': call.maxOutputTokens }),
    },
  });
  return { span, context: trace.setSpan(context.active(), span) };
}

interface ModelCallResult {
  inputTokens?: number;
  outputTokens?: number;
  finishReason?: string;
}

export function recordModelCallResult(span: Span, result: ModelCallResult): void {
  if (result.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', result.inputTokens);
  if (result.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', result.outputTokens);
  if (result.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [result.finishReason]);
}

/** Marks a span failed with the error's class only: its message may quote user content. */
export function recordSpanFailure(span: Span, error: unknown): void {
  span.setAttribute('error.type', error instanceof Error ? error.constructor.name : 'unknown');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs `work` in an active internal span, so the spans it opens are its children; a failure marks the span. */
function inInternalSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      recordSpanFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs one tool call in its span (`execute_tool <name>`). */
export function traceToolCall<T>(name: string, callId: string, execute: () => Promise<T>): Promise<T> {
  return inInternalSpan(
    `execute_tool ${name}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': callId,
    },
    execute,
  );
}

/** The agent a reply runs, as its `invoke_agent` span names it. */
interface AgentInvocation {
  agentId: string;
  agentName: string;
  /** The agent version the reply runs (CONTRACTS §23); null for an agent stored before versions. */
  agentVersion: number | null;
  /** The thread (`gen_ai.conversation.id`). */
  conversationId: string;
  /** The agent's model as configured (`gen_ai.request.model`). */
  model: string;
}

/**
 * Runs one reply's agent work in its span (`invoke_agent <name>`, GenAI agent conventions): the parent of the
 * reply's `chat` and `execute_tool` spans, so a trace shows which agent, version and conversation they served.
 */
export function traceAgentInvocation<T>(invocation: AgentInvocation, invoke: () => Promise<T>): Promise<T> {
  return inInternalSpan(
    `invoke_agent ${invocation.agentName}`,
    {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'parley',
      'gen_ai.agent.id': invocation.agentId,
      'gen_ai.agent.name': invocation.agentName,
      ...(invocation.agentVersion !== null && { 'gen_ai.agent.version': String(invocation.agentVersion) }),
      'gen_ai.conversation.id': invocation.conversationId,
      'gen_ai.request.model': invocation.model,
    },
    invoke,
  );
}
