import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { ApprovalDecision, approvalQuestion, Question } from '@app/contracts';
import { RunStepEntity, StepToolCall, ToolApproval, ToolApprovalRepository } from '@app/persistence';
import { parseArguments } from '../conversation';
import { AgentTool } from '../tools/tool';
import { RunState } from './run-state';

/** A call's decision as its tool result reports it: the tool runs, or the model reads the denial. */
export interface CallDecision {
  decision: ApprovalDecision;
  reason: string | null;
}

/** How a step's calls stand: some still wait for a person, or each call that needed one is decided. */
type ApprovalCheck =
  | { kind: 'waiting'; questions: Question[] }
  | { kind: 'decided'; decisions: ReadonlyMap<string, CallDecision> };

/** Whether an agent's `approval_required` names the tool, by its permission (`web`, `mcp:<server>`) or name. */
function needsApproval(approvalRequired: readonly string[], tool: AgentTool | undefined): boolean {
  return (
    tool !== undefined && (approvalRequired.includes(tool.permission) || approvalRequired.includes(tool.name))
  );
}

/**
 * The calls of a step that wait for a person: those with an approval row once the step asked (an agent changed
 * since does not undo a wait already announced), else those of tools the agent's `approval_required` names.
 */
export function heldCalls(
  approvalRequired: readonly string[],
  step: RunStepEntity,
  offered: readonly AgentTool[],
  stored: readonly ToolApproval[],
): Set<string> {
  const asked = stored.filter((approval) => approval.step === step.step);
  if (asked.length > 0) return new Set(asked.map((approval) => approval.callId));
  return new Set(
    step.toolCalls
      .filter((call) =>
        needsApproval(
          approvalRequired,
          offered.find((tool) => tool.name === call.name),
        ),
      )
      .map((call) => call.callId),
  );
}

/**
 * The approvals of a stored step (CONTRACTS §19): its calls of tools the agent lists in `approval_required` are
 * stored as waiting, each announced by an `approval.requested` line; once all are decided (or their time is up,
 * which denies them) each gets an `approval.decided` line and the step's tools may run. The lines are the
 * stored rows' (storedRunLines rebuilds them), so a run resumed anywhere emits the same ones.
 */
@Injectable()
export class ApprovalGate {
  constructor(
    private readonly settings: Settings,
    private readonly approvals: ToolApprovalRepository,
  ) {}

  /** `held`: the step's calls that wait for a person (heldCalls). */
  async check(
    replyId: string,
    step: RunStepEntity,
    held: ReadonlySet<string>,
    stored: ToolApproval[],
    state: RunState,
  ): Promise<ApprovalCheck> {
    const waiting = step.toolCalls
      .map((call, callIndex) => ({ call, callIndex }))
      .filter(({ call }) => held.has(call.callId));
    let ofStep = stored.filter((approval) => approval.step === step.step);
    // Asked once: an agent changed since then does not undo a wait already announced.
    if (waiting.length > 0 && ofStep.length === 0) {
      await this.approvals.request(
        replyId,
        step.step,
        waiting.map(({ call, callIndex }) => ({
          callId: call.callId,
          callIndex,
          name: call.name,
          arguments: argumentsOf(call),
        })),
        this.settings.approvalTimeoutSeconds,
      );
      ofStep = await this.stepApprovals(replyId, step.step);
    }
    if (ofStep.length === 0) return { kind: 'decided', decisions: new Map() };
    // A client that sees a request answers it at once: the request goes out once the reply waits (or once the
    // decisions are stored below), never earlier with a step's lines the journal releases.
    state.keepFromJournal();
    for (const approval of ofStep) {
      state.emitOnce({
        type: 'approval.requested',
        step: step.step,
        call_id: approval.callId,
        name: approval.name,
        arguments: approval.arguments,
      });
    }
    const expired = ofStep.some((approval) => approval.decision === null && approval.expiresAt <= new Date());
    if (expired && (await this.approvals.expire(replyId, step.step)))
      ofStep = await this.stepApprovals(replyId, step.step);
    const undecided = ofStep.filter((approval) => approval.decision === null);
    if (undecided.length > 0) return { kind: 'waiting', questions: undecided.map(approvalQuestion) };
    const decisions = new Map<string, CallDecision>();
    for (const approval of ofStep) {
      const decision = approval.decision!;
      state.emitOnce({ type: 'approval.decided', step: step.step, call_id: approval.callId, decision });
      decisions.set(approval.callId, { decision, reason: approval.reason });
    }
    // The decisions are stored rows: their lines may go out.
    state.stored();
    return { kind: 'decided', decisions };
  }

  private async stepApprovals(replyId: string, step: number): Promise<ToolApproval[]> {
    return (await this.approvals.ofReply(replyId)).filter((approval) => approval.step === step);
  }
}

function argumentsOf(call: StepToolCall): Record<string, unknown> {
  return parseArguments(call.arguments) ?? {};
}
