import { LanguageModelV3, LanguageModelV3FunctionTool, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Settings } from '@app/config';
import {
  AgentEntity,
  GateQuery,
  MessageEntity,
  Question,
  RunContext,
  RunRepository,
  RunStepEntity,
  StepToolCall,
  ThreadEntity,
  ToolCallEntity,
} from '@app/persistence';
import { buildPrompt, idempotencyKey, MessageAttachments, parseArguments } from './conversation';
import { ModelProvider } from './models/model-provider';
import { RunMetrics } from './run-metrics';
import { RunState } from './run-state';
import { instructionsWithTools, toolsWhileSkillInUse } from './tools/skill-in-use';
import { AgentTool, RunScope, ToolError } from './tools/tool';
import { ToolRegistry } from './tools/tool-registry';

/** One reply's run as the step loop sees it. */
export interface ReplyRun {
  reply: MessageEntity;
  /** The user message the reply answers (its disabled_tools, source_ids, document_ids). */
  question: MessageEntity | null;
  thread: ThreadEntity;
  agent: AgentEntity;
  /** The thread before the reply, the reply's stored steps and tool results, the gate of its next step. */
  context: RunContext;
  /** Files attached to the history's user messages, by message id. */
  attachments: ReadonlyMap<string, MessageAttachments>;
  state: RunState;
  signal: AbortSignal;
}

export type LoopOutcome =
  | { kind: 'success'; questions: Question[] | null; structuredOutput: Record<string, unknown> | null }
  | { kind: 'cancelled' }
  | { kind: 'budget_exhausted' }
  | { kind: 'model_error'; reason: string };

/** The model failed (an error part, a refused call, a broken stream): the reply ends with status error. */
export class ModelCallError extends Error {}

/**
 * The agent's steps, one at a time: a streamed model call, then the tool calls it asked for. A step's output is
 * stored as soon as its model call ends and each tool result before its `tool.result` line, so a run resumed on
 * another worker replays stored steps and results instead of calling the model or a tool again.
 */
@Injectable()
export class StepLoop {
  constructor(
    private readonly settings: Settings,
    private readonly runs: RunRepository,
    private readonly models: ModelProvider,
    private readonly tools: ToolRegistry,
    private readonly metrics: RunMetrics,
  ) {}

  async run(run: ReplyRun): Promise<LoopOutcome> {
    const { reply, thread, agent, state, signal } = run;
    const maxSteps = reply.maxSteps ?? this.settings.defaultMaxSteps;
    const scope: RunScope = {
      orgId: reply.orgId,
      userId: thread.userId,
      agentId: agent.id,
      threadId: thread.id,
      messageId: reply.id,
      memoryNamespace: thread.memoryNamespace,
      sourceIds: run.question?.sourceIds ?? null,
      documentIds: run.question?.documentIds ?? null,
    };
    const available = await this.tools.toolsFor(scope, {
      agentTools: agent.tools,
      mcpServers: agent.mcpServers,
      disabledTools: run.question?.disabledTools ?? null,
    });
    const steps = [...run.context.steps];
    const results = new Map(run.context.toolResults.map((r) => [r.idempotencyKey, r]));

    const gateQuery = (): GateQuery => ({
      threadId: thread.id,
      agentId: agent.id,
      replyTokens: steps.reduce((sum, step) => sum + step.usageTokens, 0),
    });
    // Each checkpoint answers the next step's gate in its own round trip; the first one came with the context.
    let gate = run.context.gate;

    for (let number = 1; ; number++) {
      const startedAt = performance.now();
      if (signal.aborted || gate.archived) return { kind: 'cancelled' };
      const stepStartedAt = new Date();
      let modelMs = 0;
      // Decided by the steps before this one, so a resumed step is offered what it was offered the first time.
      const offered = toolsWhileSkillInUse(available, steps.slice(0, number - 1), results, (n, callId) =>
        idempotencyKey(reply.id, n, callId),
      );
      let step = steps[number - 1];
      if (!step) {
        if (gate.budgetSpent) return { kind: 'budget_exhausted' };
        state.emitOnce({ type: 'step.started', step: number });
        const offerTools = number <= maxSteps;
        let output: StepOutput | undefined;
        const modelStarted = performance.now();
        try {
          output = await this.callModel(
            run,
            buildPrompt({
              instructions: instructionsWithTools(agent.instructions, offered),
              history: run.context.history,
              attachments: run.attachments,
              steps,
              results,
              contextBudgetTokens: this.settings.contextBudgetTokens,
            }),
            offered,
            offerTools,
            steps[number - 2]?.contentLength ?? 0,
          );
        } catch (error) {
          if (signal.aborted) return { kind: 'cancelled' };
          if (error instanceof ModelCallError) return { kind: 'model_error', reason: error.message };
          throw error;
        } finally {
          // Writing the deltas is the runtime's time, not the model's.
          modelMs = performance.now() - modelStarted - (output?.emitMs ?? 0);
          this.metrics.modelCallDuration.observe({ model: agent.model }, modelMs / 1000);
        }
        // The step's events go to Redis while the step is stored; if a crash lets the step land without them,
        // the resumed run sends what is missing (below).
        [{ step, gate }] = await Promise.all([
          this.runs.saveStep(
            Object.assign(new RunStepEntity(), {
              messageId: reply.id,
              step: number,
              text: output.text,
              // Past the cap the model was offered no tools: whatever it still asks for is not run.
              toolCalls: offerTools ? output.toolCalls : [],
              questions: output.questions,
              structuredOutput: output.structuredOutput,
              usageTokens: output.usageTokens,
              contentLength: state.content.length,
              startedAt: stepStartedAt,
            }),
            gateQuery(),
          ),
          state.flush(),
        ]);
        steps.push(step);
      } else {
        // Stored, but a crash may have kept its start or the end of its text from reaching the stream.
        state.emitOnce({ type: 'step.started', step: number });
        const missing = step.contentLength - state.content.length;
        if (missing > 0) state.emitText(step.text.slice(-missing));
      }

      if (step.toolCalls.length === 0) {
        if (step.questions?.length) state.emitOnce({ type: 'questions', questions: step.questions });
        this.observeStep(startedAt, modelMs, 0);
        return { kind: 'success', questions: step.questions, structuredOutput: step.structuredOutput };
      }
      for (const call of step.toolCalls) {
        state.emitOnce({
          type: 'tool.call',
          step: number,
          call_id: call.callId,
          name: call.name,
          arguments: parseArguments(call.arguments) ?? {},
        });
      }
      // A run that lost its log to another worker finds out here, before it runs a tool that changes anything.
      const changesSomething = step.toolCalls.some((call) => {
        const tool = offered.find((candidate) => candidate.name === call.name);
        return tool !== undefined && !tool.readOnly;
      });
      if (changesSomething) await state.flush();
      let toolMs = 0;
      for (const call of step.toolCalls) {
        const key = idempotencyKey(reply.id, number, call.callId);
        let result = results.get(key);
        if (!result) {
          const toolStarted = performance.now();
          const tool = offered.find((candidate) => candidate.name === call.name);
          const { output, isError } = await this.callTool(tool, call, {
            ...scope,
            idempotencyKey: key,
            step: number,
            callId: call.callId,
            signal,
          });
          const durationMs = performance.now() - toolStarted;
          toolMs += durationMs;
          if (signal.aborted) return { kind: 'cancelled' };
          ({ result, gate } = await this.runs.saveToolResult(
            Object.assign(new ToolCallEntity(), {
              idempotencyKey: key,
              messageId: reply.id,
              step: number,
              callId: call.callId,
              name: call.name,
              arguments: parseArguments(call.arguments) ?? {},
              output,
              isError,
              durationMs: Math.round(durationMs),
            }),
            gateQuery(),
          ));
          results.set(key, result);
        }
        state.emitOnce({
          type: 'tool.result',
          step: number,
          call_id: call.callId,
          name: call.name,
          output: result.output,
          is_error: result.isError,
        });
      }
      this.observeStep(startedAt, modelMs, toolMs);
    }
  }

  /**
   * One streamed model call. Text already streamed by an interrupted run of this step (what the content holds
   * past `stepStart`) is not streamed again when the new answer starts with it.
   */
  private async callModel(
    run: ReplyRun,
    prompt: ReturnType<typeof buildPrompt>,
    available: AgentTool[],
    offerTools: boolean,
    stepStart: number,
  ): Promise<StepOutput> {
    let model: LanguageModelV3;
    try {
      model = this.models.languageModel(run.agent.model);
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
      throw new ModelCallError(describe(error));
    }
    const output: StepOutput = {
      text: '',
      toolCalls: [],
      questions: null,
      structuredOutput: null,
      usageTokens: 0,
      emitMs: 0,
    };
    let replayed = run.state.content.slice(stepStart);
    const reader = stream.getReader();
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        throw new ModelCallError(describe(error));
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
        output.usageTokens = (part.usage.inputTokens.total ?? 0) + (part.usage.outputTokens.total ?? 0);
        const extra = part.providerMetadata?.parley as
          { questions?: Question[]; structuredOutput?: Record<string, unknown> } | undefined;
        output.questions = extra?.questions ?? null;
        output.structuredOutput = extra?.structuredOutput ?? null;
      } else if (part.type === 'error') {
        await reader.cancel().catch(() => undefined);
        throw new ModelCallError(describe(part.error));
      }
    }
    return output;
  }

  private async callTool(
    tool: AgentTool | undefined,
    call: StepToolCall,
    context: Parameters<AgentTool['execute']>[1],
  ): Promise<{ output: unknown; isError: boolean }> {
    if (!tool) return { output: `tool ${call.name} is not available`, isError: true };
    const args = parseArguments(call.arguments);
    if (!args)
      return { output: `invalid arguments for tool ${call.name}: expected a JSON object`, isError: true };
    try {
      return { output: (await tool.execute(args, context)) ?? null, isError: false };
    } catch (error) {
      if (error instanceof ToolError) return { output: error.message, isError: true };
      return { output: `tool ${call.name} failed: ${describe(error)}`, isError: true };
    }
  }

  private observeStep(startedAt: number, modelMs: number, toolMs: number): void {
    const totalMs = performance.now() - startedAt;
    this.metrics.stepDuration.observe(totalMs / 1000);
    this.metrics.stepOverhead.observe(Math.max(0, totalMs - modelMs - toolMs) / 1000);
  }
}

interface StepOutput {
  text: string;
  toolCalls: StepToolCall[];
  questions: Question[] | null;
  structuredOutput: Record<string, unknown> | null;
  usageTokens: number;
  /** Time spent writing this call's deltas. */
  emitMs: number;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
