import { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { performance } from 'node:perf_hooks';
import { Question } from '@app/contracts';
import { buildPrompt } from '../conversation';
import { GuardrailSettings } from '@app/persistence';
import { OutputWatch } from '../guardrails/guardrails';
import { PiiKind } from '../guardrails/pii';
import { ModelProvider } from '../models/model-provider';
import { VendorModelError } from '../models/providers/vendor-error';
import { AgentTool } from '../tools/tool';
import { describeError, ModelCallError, ReplyRun, StepOutput } from './run.types';

/** What one model call is asked: the prompt, the tools it is offered and whether it may call them. */
interface ModelStepRequest {
  prompt: ReturnType<typeof buildPrompt>;
  available: AgentTool[];
  offerTools: boolean;
  /** Where this step's text starts in the reply's content. */
  stepStart: number;
  /** The step's number, 1-based, for its `model.fallback` lines. */
  step: number;
  /** The agent's guardrails: its output is watched as it streams (OutputWatch); null when it has none. */
  guardrails: GuardrailSettings | null;
}

/** A step's output before its model said anything, or of a model call never made: nothing, from `model`. */
export const emptyStepOutput = (model: string): StepOutput => ({
  text: '',
  toolCalls: [],
  questions: null,
  structuredOutput: null,
  usageTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  model,
  emitMs: 0,
  blocked: null,
});

/**
 * One model step: a streamed call to the agent's model, and when that call fails before its first delta for a
 * reason another model may not share (a rate limit, a 5xx, a timeout, a refused connection, once the resilience
 * middleware's retries are spent), the same call to each of the agent's fallback models in turn, each switch
 * written as a `model.fallback` line (CONTRACTS §24). A failure after output is final.
 */
export async function runModelStep(
  models: ModelProvider,
  run: ReplyRun,
  request: ModelStepRequest,
): Promise<StepOutput> {
  const chain = [run.agent.model, ...run.agent.fallbackModels];
  for (let index = 0; ; index++) {
    try {
      return await callModel(models, run, request, chain[index]);
    } catch (error) {
      const next = chain[index + 1];
      if (!(error instanceof ModelCallError) || !error.fallbackAllowed || !next || run.signal.aborted)
        throw error;
      run.state.emitOnce({
        type: 'model.fallback',
        step: request.step,
        from: chain[index],
        to: next,
        reason: error.message,
      });
    }
  }
}

/** Whether a failure may be left to another model: the vendor was rate limiting, failing, silent or unreachable. */
const transient = (error: unknown) => error instanceof VendorModelError && error.transient;

/**
 * One streamed model call. Text already streamed by an interrupted run of this step (what the content holds
 * past `stepStart`) is not streamed again when the new answer starts with it. Every failure of the model is a
 * `ModelCallError`.
 *
 * Under output guardrails each delta goes out as the watch lets it (redacted, or held a little while a finding may
 * still be written). A delta the watch refuses does not go out, nor does anything after it, but the call is read
 * to its end: the vendor reports what the call spent only in its last part, and a blocked step counts its tokens
 * like any other (CONTRACTS §21). The output then carries `blocked`.
 */
async function callModel(
  models: ModelProvider,
  run: ReplyRun,
  { prompt, available, offerTools, stepStart, guardrails }: ModelStepRequest,
  modelName: string,
): Promise<StepOutput> {
  let model: LanguageModelV3;
  try {
    model = models.languageModel(modelName);
  } catch (error) {
    throw new ModelCallError((error as Error).message);
  }
  const tools: LanguageModelV3FunctionTool[] = available.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
  }));
  let stream: ReadableStream<LanguageModelV3StreamPart>;
  try {
    ({ stream } = await model.doStream({
      prompt,
      tools,
      toolChoice: offerTools ? { type: 'auto' } : { type: 'none' },
      abortSignal: run.signal,
      temperature: run.agent.modelOptions.temperature,
      maxOutputTokens: run.agent.modelOptions.maxOutputTokens,
      // The vendor middleware turns it into each vendor's cache marks (promptCacheMiddleware).
      providerOptions: { parley: { promptCacheKey: run.thread.id } },
    }));
  } catch (error) {
    throw new ModelCallError(describeError(error), transient(error));
  }
  const output = emptyStepOutput(modelName);
  const watch = guardrails ? new OutputWatch(guardrails) : null;
  let replayed = run.state.content.slice(stepStart);
  /** Sends text the watch let through: the step's text as it goes out. */
  const send = (text: string, redacted: PiiKind[]) => {
    for (const kind of redacted)
      run.state.emitOnce({ type: 'guardrail.triggered', stage: 'output', kind, action: 'redacted' });
    output.text += text;
    let delta = text;
    if (replayed) {
      if (replayed.startsWith(delta)) {
        replayed = replayed.slice(delta.length);
        return;
      }
      if (delta.startsWith(replayed)) delta = delta.slice(replayed.length);
      replayed = '';
    }
    const emitStarted = performance.now();
    run.state.emitText(delta);
    output.emitMs += performance.now() - emitStarted;
  };
  /** The call ended: what the watch still holds goes out. */
  const release = () => {
    if (!watch || output.blocked) return;
    const rest = watch.end();
    send(rest.text, rest.redacted);
  };
  // Whether the call produced anything yet: after that, a failure is final, never left to another model.
  let produced = false;
  const reader = stream.getReader();
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (error) {
      // A blocked call that breaks while it is read to its end is still blocked, with what it reported.
      if (output.blocked) break;
      release();
      throw new ModelCallError(describeError(error), !produced && transient(error));
    }
    if (next.done) break;
    const part = next.value;
    if (part.type === 'text-delta') {
      if (output.blocked) continue;
      if (part.delta) produced = true;
      if (!watch) {
        send(part.delta, []);
        continue;
      }
      const watched = watch.push(part.delta);
      if ('blocked' in watched) output.blocked = watched.blocked;
      else send(watched.text, watched.redacted);
    } else if (part.type === 'tool-call') {
      produced = true;
      if (!output.blocked)
        output.toolCalls.push({ callId: part.toolCallId, name: part.toolName, arguments: part.input });
    } else if (part.type === 'finish') {
      output.outputTokens = part.usage.outputTokens.total ?? 0;
      output.usageTokens = (part.usage.inputTokens.total ?? 0) + output.outputTokens;
      output.cachedInputTokens = part.usage.inputTokens.cacheRead ?? 0;
      const extra = part.providerMetadata?.parley as
        { questions?: Question[]; structuredOutput?: Record<string, unknown> } | undefined;
      output.questions = extra?.questions ?? null;
      output.structuredOutput = extra?.structuredOutput ?? null;
    } else if (part.type === 'error') {
      await reader.cancel().catch(() => undefined);
      if (output.blocked) break;
      release();
      throw new ModelCallError(describeError(part.error), !produced && transient(part.error));
    }
  }
  release();
  return output;
}
