import { RunStepEntity, StepToolCall, ToolApproval, ToolCallEntity } from '@app/persistence';
import { splitByLengths, UnnumberedRunEvent } from '@app/run-events';
import { idempotencyKey, parseArguments } from '../conversation';

/**
 * The lines a live reply's stored steps and tool results say its runs published, in order (the seq of each
 * is its index): what a run resumed after Redis lost the reply's log appends again, so the stream keeps the
 * seqs its clients already hold. The order is the step loop's: `message.started`; per step `step.started`, its
 * text deltas (cut by the stored lengths, as replays of a finished reply cut them), then either its
 * `questions` or its `tool.call` lines, the `tool.result` of each call needing no person stored so far, the
 * `approval.requested` line of each call that waits for one and, once all are decided, their `approval.decided`
 * lines and the `tool.result` of each of those stored so far.
 */
export function storedRunLines(
  reply: { id: string; threadId: string; agentVersion: number | null },
  steps: readonly RunStepEntity[],
  toolResults: readonly ToolCallEntity[],
  approvals: readonly ToolApproval[] = [],
): UnnumberedRunEvent[] {
  const results = new Map(toolResults.map((result) => [result.idempotencyKey, result]));
  const lines: UnnumberedRunEvent[] = [
    {
      type: 'message.started',
      message_id: reply.id,
      thread_id: reply.threadId,
      agent_version: reply.agentVersion,
    },
  ];
  for (const step of steps) {
    lines.push({ type: 'step.started', step: step.step });
    const streamed = step.streamedText ?? step.text;
    // A step stored before its delta lengths were kept is rebuilt as one delta.
    const lengths = step.deltaLengths ?? (streamed ? [streamed.length] : []);
    for (const delta of splitByLengths(streamed, lengths)) lines.push({ type: 'text.delta', delta });
    if (step.toolCalls.length === 0) {
      if (step.questions?.length) lines.push({ type: 'questions', questions: step.questions });
      continue;
    }
    for (const call of step.toolCalls) {
      lines.push({
        type: 'tool.call',
        step: step.step,
        call_id: call.callId,
        name: call.name,
        arguments: parseArguments(call.arguments) ?? {},
      });
    }
    const ofStep = approvals.filter((approval) => approval.step === step.step);
    const held = new Set(ofStep.map((approval) => approval.callId));
    // The calls that need no person ran first. Before the step's approvals are asked (no rows yet) every call
    // counts as one of them: a call that will wait has no result until then.
    lines.push(
      ...resultLines(
        reply.id,
        step,
        step.toolCalls.filter((call) => !held.has(call.callId)),
        results,
      ),
    );
    for (const approval of ofStep) {
      lines.push({
        type: 'approval.requested',
        step: step.step,
        call_id: approval.callId,
        name: approval.name,
        arguments: approval.arguments,
      });
    }
    // Until every call of the step is decided, nothing after the requests was published.
    if (ofStep.some((approval) => approval.decision === null)) break;
    for (const approval of ofStep)
      lines.push({
        type: 'approval.decided',
        step: step.step,
        call_id: approval.callId,
        decision: approval.decision!,
      });
    lines.push(
      ...resultLines(
        reply.id,
        step,
        step.toolCalls.filter((call) => held.has(call.callId)),
        results,
      ),
    );
  }
  return lines;
}

/** The `tool.result` lines of the calls that have a stored result, in order. */
function resultLines(
  replyId: string,
  step: RunStepEntity,
  calls: readonly StepToolCall[],
  results: ReadonlyMap<string, ToolCallEntity>,
): UnnumberedRunEvent[] {
  const lines: UnnumberedRunEvent[] = [];
  for (const call of calls) {
    const result = results.get(idempotencyKey(replyId, step.step, call.callId));
    // A call without a stored result has not run yet (or waits for a person while the step asks for none).
    if (!result) continue;
    lines.push({
      type: 'tool.result',
      step: step.step,
      call_id: call.callId,
      name: call.name,
      output: result.output,
      is_error: result.isError,
    });
  }
  return lines;
}
