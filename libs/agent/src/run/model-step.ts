import { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { performance } from 'node:perf_hooks';
import { Question } from '@app/contracts';
import { buildPrompt } from '../conversation';
import { ModelProvider } from '../models/model-provider';
import { AgentTool } from '../tools/tool';
import { describeError, ModelCallError, ReplyRun, StepOutput } from './run.types';

/** What one model call is asked: the prompt, the tools it is offered and whether it may call them. */
export interface ModelStepRequest {
  prompt: ReturnType<typeof buildPrompt>;
  available: AgentTool[];
  offerTools: boolean;
  /** Where this step's text starts in the reply's content. */
  stepStart: number;
}

/**
 * One streamed model call. Text already streamed by an interrupted run of this step (what the content holds
 * past `stepStart`) is not streamed again when the new answer starts with it. Every failure of the model is a
 * `ModelCallError`.
 */
export async function runModelStep(
  models: ModelProvider,
  run: ReplyRun,
  { prompt, available, offerTools, stepStart }: ModelStepRequest,
): Promise<StepOutput> {
  let model: LanguageModelV3;
  try {
    model = models.languageModel(run.agent.model);
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
    }));
  } catch (error) {
    throw new ModelCallError(describeError(error));
  }
  const output: StepOutput = {
    text: '',
    toolCalls: [],
    questions: null,
    structuredOutput: null,
    usageTokens: 0,
    outputTokens: 0,
    emitMs: 0,
  };
  let replayed = run.state.content.slice(stepStart);
  const reader = stream.getReader();
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (error) {
      throw new ModelCallError(describeError(error));
    }
    if (next.done) break;
    const part = next.value;
    if (part.type === 'text-delta') {
      output.text += part.delta;
      let delta = part.delta;
      if (replayed) {
        if (replayed.startsWith(delta)) {
          replayed = replayed.slice(delta.length);
          continue;
        }
        if (delta.startsWith(replayed)) delta = delta.slice(replayed.length);
        replayed = '';
      }
      const emitStarted = performance.now();
      run.state.emitText(delta);
      output.emitMs += performance.now() - emitStarted;
    } else if (part.type === 'tool-call') {
      output.toolCalls.push({ callId: part.toolCallId, name: part.toolName, arguments: part.input });
    } else if (part.type === 'finish') {
      output.outputTokens = part.usage.outputTokens.total ?? 0;
      output.usageTokens = (part.usage.inputTokens.total ?? 0) + output.outputTokens;
      const extra = part.providerMetadata?.parley as
        { questions?: Question[]; structuredOutput?: Record<string, unknown> } | undefined;
      output.questions = extra?.questions ?? null;
      output.structuredOutput = extra?.structuredOutput ?? null;
    } else if (part.type === 'error') {
      await reader.cancel().catch(() => undefined);
      throw new ModelCallError(describeError(part.error));
    }
  }
  return output;
}
