import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Settings } from '@app/config';
import {
  GateQuery,
  RunGate,
  RunRepository,
  RunStepEntity,
  StepToolCall,
  ToolCallEntity,
} from '@app/persistence';
import { buildPrompt, idempotencyKey, parseArguments } from '../conversation';
import { ModelProvider } from '../models/model-provider';
import { RunMetrics } from './run-metrics';
import { instructionsWithTools, toolsWhileSkillInUse } from '../tools/skill-in-use';
import { AgentTool, RunScope } from '../tools/tool';
import { ToolRegistry } from '../tools/tool-registry';
import { withoutImageBytes } from '../tools/tool-content';
import { ApprovalGate, CallDecision, heldCalls } from './approval-gate';
import { runModelStep } from './model-step';
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
    private readonly userBudgetTurn: UserBudgetTurn,
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
        const modelStarted = performance.now();
        try {
          output = await runModelStep(this.models, run, {
            prompt: buildPrompt({
              instructions: instructionsWithTools(agent.instructions, offered),
              summary: run.summary,
              history: run.context.history,
              attachments: run.attachments,
              steps,
              results,
              contextBudgetTokens: this.settings.contextBudgetTokens,
            }),
            available: offered,
            offerTools,
            stepStart: steps[number - 2]?.contentLength ?? 0,
          });
        } catch (error) {
          if (signal.aborted) return { kind: 'cancelled' };
          if (error instanceof ModelCallError) return { kind: 'model_error', reason: error.message };
          throw error;
        } finally {
          // Writing the deltas is the runtime's time, not the model's.
          modelMs = performance.now() - modelStarted - (output?.emitMs ?? 0);
          this.metrics.modelCallDuration.observe({ model: agent.model }, modelMs / 1000);
        }
        const streamed = state.streamedAfter(steps[number - 2]?.contentLength ?? 0);
        const produced = Object.assign(new RunStepEntity(), {
          messageId: reply.id,
          step: number,
          text: output.text,
          // Past the cap the model was offered no tools: whatever it still asks for is not run.
          toolCalls: offerTools ? output.toolCalls : [],
          questions: output.questions,
          structuredOutput: output.structuredOutput,
          usageTokens: output.usageTokens,
          outputTokens: output.outputTokens,
          contentLength: state.content.length,
          deltaLengths: streamed.deltaLengths,
          streamedText: streamed.text === output.text ? null : streamed.text,
          startedAt: stepStartedAt,
        });
        if (produced.toolCalls.length === 0) {
          // The reply's last step: nothing runs after it but the finish, whose statement stores it (one commit
          // less per reply) before its lines go out.
          return this.succeed(state, produced, produced, startedAt, modelMs);
        }
        // Store, then publish: the step's lines go to Redis once its row holds them. If a crash (or Redis losing
        // its data) lets the step land without them, the resumed run sends what is missing (RunState.restore).
        ({ step, gate } = await this.runs.saveStep(produced, gateQuery));
        state.stored();
        steps.push(step);
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
