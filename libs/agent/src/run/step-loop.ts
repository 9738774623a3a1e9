import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { maxStepsOf, Settings } from '@app/config';
import {
  GateQuery,
  RunGate,
  RunRepository,
  RunStepEntity,
  StepToolCall,
  ToolCallEntity,
} from '@app/persistence';
import { buildPrompt, idempotencyKey, instructionsWithTools, parseArguments } from '../conversation';
import { ModelProvider } from '../models/model-provider';
import {
  GuardrailBlockedError,
  Guardrails,
  GuardrailTrigger,
  guardedHistory,
  ModerationUsage,
  NO_MODERATION_USAGE,
} from '../guardrails/guardrails';
import { RunMetrics } from './run-metrics';
import { AgentTool, RunScope } from '../tools/tool';
import { ToolRegistry, toolsWhileSkillInUse } from '../tools/tool-registry';
import { withoutImageBytes } from '../tools/tool-content';
import { ApprovalGate, CallDecision, heldCalls } from './approval-gate';
import { emptyStepOutput, runModelStep } from './model-step';
import { RunState } from './run-state';
import { LoopOutcome, ModelCallError, ReplyRun, StepOutput } from './run.types';
import { runToolCall } from './tool-step';
import { isRunOverBudget, replyTokensSpent } from './token-budget';
import { UserBudgetTurn } from './user-budget-turn';

/** What running a step's calls needs besides the run: the step's number, its tools and the results so far. */
interface StepCalls {
  number: number;
  offered: AgentTool[];
  scope: RunScope;
  results: Map<string, ToolCallEntity>;
  gateQuery: GateQuery;
}

/**
 * The agent's steps, one at a time: a streamed model call, then the tool calls it asked for. A step's output is
 * stored as soon as its model call ends and each tool result before its `tool.result` line, so a run resumed on
 * another worker replays stored steps and results instead of calling the model or a tool again. Lines go out
 * only once PostgreSQL holds them: a step's when its row is stored (or, while its model still streams, when the
 * StreamJournal stored them), a result's with it.
 */
@Injectable()
export class StepLoop {
  constructor(
    private readonly settings: Settings,
    private readonly runs: RunRepository,
    private readonly models: ModelProvider,
    private readonly tools: ToolRegistry,
    private readonly metrics: RunMetrics,
    private readonly approvalGate: ApprovalGate,
    private readonly guardrails: Guardrails,
    private readonly userBudgetTurn: UserBudgetTurn,
  ) {}

  async run(run: ReplyRun): Promise<LoopOutcome> {
    const { reply, thread, agent, state, signal } = run;
    const maxSteps = maxStepsOf(this.settings, reply.maxSteps);
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

    // The user's message is checked once, before the reply's first model call; a resumed run that stored a step
    // already passed.
    // What the moderation model spent on the message, counted with the reply's first step (CONTRACTS §21).
    let moderation = NO_MODERATION_USAGE;
    if (agent.guardrails && steps.length === 0 && run.question) {
      const input = await this.guardrails.checkInput(agent.guardrails, run.question.content, signal);
      input.triggers.forEach((trigger) => this.triggered(state, trigger));
      if (signal.aborted) return { kind: 'cancelled' };
      moderation = input.usage;
      if (input.blocked) {
        // Only the moderation model spent anything: stored as the reply's one step when it did, with the empty
        // output of the model call the block kept from being made.
        const spent = moderation.inputTokens + moderation.outputTokens > 0;
        const model = agent.guardrails.moderationModel ?? agent.model;
        const finalStep = spent
          ? stepRow(reply.id, 1, new Date(), emptyStepOutput(model), {
              moderation,
              toolCalls: [],
              contentLength: 0,
              streamed: { text: '', deltaLengths: [] },
            })
          : null;
        return { kind: 'guardrail_blocked', finalStep };
      }
    }
    // An agent without guardrails (most of them) sees its history as it is.
    const history = agent.guardrails
      ? guardedHistory(run.context.history, agent.guardrails)
      : run.context.history;

    const gateQuery: GateQuery = { threadId: thread.id, agentId: agent.id };
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
        if (gate.userBudget !== null) {
          gate = await this.userBudgetTurn.take(run, gateQuery);
          if (signal.aborted || gate.archived) return { kind: 'cancelled' };
        }
        // The reply's own tokens are not in the counters yet: they are counted when it ends.
        if (isRunOverBudget(gate, replyTokensSpent(steps) + run.summaryUsageTokens))
          return { kind: 'budget_exhausted' };
        state.emitOnce({ type: 'step.started', step: number });
        const offerTools = number <= maxSteps;
        let output: StepOutput | undefined;
        let blocked: GuardrailTrigger | null = null;
        const modelStarted = performance.now();
        try {
          output = await runModelStep(this.models, run, {
            prompt: buildPrompt({
              instructions: instructionsWithTools(agent.instructions, offered),
              summary: run.summary,
              history,
              attachments: run.attachments,
              steps,
              results,
              contextBudgetTokens: this.settings.contextBudgetTokens,
            }),
            available: offered,
            offerTools,
            stepStart: steps[number - 2]?.contentLength ?? 0,
            step: number,
            guardrails: agent.guardrails,
          });
          blocked = output.blocked;
          if (agent.guardrails && !blocked) {
            const checked = await this.guardrails.checkOutput(agent.guardrails, output.text, signal);
            moderation = addUsage(moderation, checked);
          }
        } catch (error) {
          if (signal.aborted) return { kind: 'cancelled' };
          if (error instanceof ModelCallError) return { kind: 'model_error', reason: error.message };
          if (!(error instanceof GuardrailBlockedError)) throw error;
          blocked = error.trigger;
          moderation = addUsage(moderation, error.usage);
        } finally {
          // Writing the deltas is the runtime's time, not the model's.
          modelMs = performance.now() - modelStarted - (output?.emitMs ?? 0);
          this.metrics.modelCallDuration.observe({ model: agent.model }, modelMs / 1000);
        }
        if (blocked) {
          this.triggered(state, blocked);
          // The blocked reply's text is withdrawn from what is stored and from what a stream replays (CONTRACTS §24).
          await state.withdrawText();
        }
        const streamed = state.streamedAfter(steps[number - 2]?.contentLength ?? 0);
        // A blocked step is stored like any other, for what it spent, but it keeps no text and calls nothing.
        const produced = stepRow(reply.id, number, stepStartedAt, blocked ? withdrawn(output!) : output!, {
          moderation,
          // Past the cap the model was offered no tools: whatever it still asks for is not run.
          toolCalls: offerTools && !blocked ? output!.toolCalls : [],
          contentLength: state.content.length,
          streamed,
        });
        moderation = NO_MODERATION_USAGE;
        if (blocked) return { kind: 'guardrail_blocked', finalStep: produced };
        if (produced.toolCalls.length === 0) {
          // The reply's last step: nothing runs after it but the finish, whose statement stores it (one commit
          // less per reply) before its lines go out.
          return this.succeed(state, produced, produced, startedAt, modelMs);
        }
        // Store, then publish: the step's lines go to Redis once its row holds them. If a crash (or Redis losing
        // its data) lets the step land without them, the resumed run sends what is missing (RunState.restore).
        const saved = await this.runs.saveStep(produced, gateQuery);
        ({ step, gate } = saved);
        state.stored();
        steps.push(step);
        // The statement gave the end user's spending turn to the oldest parked reply of theirs: it runs now.
        await this.userBudgetTurn.wake(saved.nextParked);
      }

      if (step.toolCalls.length === 0) return this.succeed(state, step, null, startedAt, modelMs);
      for (const call of step.toolCalls) {
        state.emitOnce({
          type: 'tool.call',
          step: number,
          call_id: call.callId,
          name: call.name,
          arguments: parseArguments(call.arguments) ?? {},
        });
      }
      // The calls are the stored step's.
      state.stored();
      // Calls that need no person run first, as the AI SDK's streamText runs them: while the others wait, a front
      // end already holds their results (lastAssistantMessageIsCompleteWithApprovalResponses then sends the
      // answers on its own).
      const held = heldCalls(agent.approvalRequired, step, offered, run.approvals);
      const calls: StepCalls = { number, offered, scope, results, gateQuery };
      const free = await this.runCalls(
        run,
        calls,
        step.toolCalls.filter((call) => !held.has(call.callId)),
        new Map(),
      );
      if (free === 'cancelled') return { kind: 'cancelled' };
      const approval = await this.approvalGate.check(reply.id, step, held, run.approvals, state);
      if (approval.kind === 'waiting') return { kind: 'awaiting_approval', questions: approval.questions };
      const decided = await this.runCalls(
        run,
        calls,
        step.toolCalls.filter((call) => held.has(call.callId)),
        approval.decisions,
      );
      if (decided === 'cancelled') return { kind: 'cancelled' };
      gate = decided.gate ?? free.gate ?? gate;
      this.observeStep(startedAt, modelMs, free.toolMs + decided.toolMs);
    }
  }

  /**
   * Runs the calls in order, each result stored before its `tool.result` line goes out; a call with a stored
   * result is not run again, and a denied one gets the denial as its result. Returns the time the tools took and
   * the gate the last stored result answered (none when nothing was stored).
   */
  private async runCalls(
    run: ReplyRun,
    { number, offered, scope, results, gateQuery }: StepCalls,
    calls: StepToolCall[],
    decisions: ReadonlyMap<string, CallDecision>,
  ): Promise<{ toolMs: number; gate: RunGate | null } | 'cancelled'> {
    const { reply, state, signal } = run;
    // A run that lost its log to another worker finds out here, before it runs a tool that changes anything.
    const changesSomething = calls.some((call) => {
      const tool = offered.find((candidate) => candidate.name === call.name);
      return tool !== undefined && !tool.readOnly;
    });
    if (changesSomething) await state.flush();
    let toolMs = 0;
    let gate: RunGate | null = null;
    for (const call of calls) {
      const key = idempotencyKey(reply.id, number, call.callId);
      let result = results.get(key);
      if (!result) {
        const toolStarted = performance.now();
        const tool = offered.find((candidate) => candidate.name === call.name);
        const decided = decisions.get(call.callId);
        const { output, isError } =
          decided?.decision === 'deny'
            ? { output: { denied: true, reason: decided.reason }, isError: false }
            : await runToolCall(tool, call, {
                ...scope,
                idempotencyKey: key,
                step: number,
                callId: call.callId,
                signal,
              });
        const durationMs = performance.now() - toolStarted;
        toolMs += durationMs;
        if (signal.aborted) return 'cancelled';
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
          gateQuery,
        ));
        results.set(key, result);
      }
      state.emitOnce({
        type: 'tool.result',
        step: number,
        call_id: call.callId,
        name: call.name,
        output: withoutImageBytes(result.output),
        is_error: result.isError,
      });
      state.stored();
    }
    return { toolMs, gate };
  }

  private triggered(state: RunState, trigger: GuardrailTrigger): void {
    state.emitOnce({ type: 'guardrail.triggered', ...trigger });
  }

  /** The run's outcome after a step without tool calls; `unstored` is that step when the finish must store it. */
  private succeed(
    state: RunState,
    step: RunStepEntity,
    unstored: RunStepEntity | null,
    startedAt: number,
    modelMs: number,
  ): LoopOutcome {
    if (step.questions?.length) state.emitOnce({ type: 'questions', questions: step.questions });
    this.observeStep(startedAt, modelMs, 0);
    return {
      kind: 'success',
      questions: step.questions,
      structuredOutput: step.structuredOutput,
      finalStep: unstored,
    };
  }

  private observeStep(startedAt: number, modelMs: number, toolMs: number): void {
    const totalMs = performance.now() - startedAt;
    this.metrics.stepDuration.observe(totalMs / 1000);
    this.metrics.stepOverhead.observe(Math.max(0, totalMs - modelMs - toolMs) / 1000);
  }
}

const addUsage = (a: ModerationUsage, b: ModerationUsage): ModerationUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

/** What a step stores besides its model call's output. */
interface StepFacts {
  /** What the moderation model spent on the step (and on the user's message, for the first). */
  moderation: ModerationUsage;
  toolCalls: StepToolCall[];
  /** The reply's content length once the step ended. */
  contentLength: number;
  /** What the step streamed (RunState.streamedAfter). */
  streamed: { text: string; deltaLengths: number[] };
}

/**
 * A step's row from its model call's output: every step is stored this way, a blocked one too, so that its
 * tokens are counted as every step's are, by the statement that ends the reply (CONTRACTS §21).
 */
function stepRow(
  messageId: string,
  number: number,
  startedAt: Date,
  output: StepOutput,
  { moderation, toolCalls, contentLength, streamed }: StepFacts,
): RunStepEntity {
  return Object.assign(new RunStepEntity(), {
    messageId,
    step: number,
    text: output.text,
    toolCalls,
    questions: output.questions,
    structuredOutput: output.structuredOutput,
    usageTokens: output.usageTokens + moderation.inputTokens + moderation.outputTokens,
    outputTokens: output.outputTokens + moderation.outputTokens,
    cachedInputTokens: output.cachedInputTokens,
    model: output.model,
    contentLength,
    deltaLengths: streamed.deltaLengths,
    streamedText: streamed.text === output.text ? null : streamed.text,
    startedAt,
  });
}

/** A blocked call's output as its step keeps it: what it spent, none of what it wrote. */
const withdrawn = (output: StepOutput): StepOutput => ({
  ...output,
  text: '',
  toolCalls: [],
  questions: null,
  structuredOutput: null,
});
