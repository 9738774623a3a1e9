import { Injectable } from '@nestjs/common';
import { Scope, ToolApprovalRepository } from '@app/persistence';
import { RunEvent } from '@app/run-events';

/** A call the reply waits on a person for (CONTRACTS §19), as its `approval.requested` line named it. */
export interface WaitingCall {
  step: number;
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Where a reply's stream stops for a protocol whose runs end when the reply waits for a person (A2A's
 * `input-required`, AG-UI's interrupt): after the `approval.requested` line of the last waiting call of a step.
 * A step whose calls were all decided already (a replay after the answer) does not stop: the reply went on.
 */
@Injectable()
export class ReplyWaits {
  constructor(private readonly approvals: ToolApprovalRepository) {}

  /** A reader for one reply of the scope's organization, its lines in order. */
  of(scope: Pick<Scope, 'orgId'>, replyId: string): ReplyWaitReader {
    return new ReplyWaitReader(this.waitingCallsOf(scope, replyId));
  }

  /** The calls of a step of the reply, when one of them still waits for a person; else none. */
  waitingCallsOf(scope: Pick<Scope, 'orgId'>, replyId: string): WaitingCallsOfStep {
    return async (step) => {
      const ofStep = (await this.approvals.ofVisibleReply(scope, replyId)).filter(
        (approval) => approval.step === step,
      );
      const waits = ofStep.some((approval) => approval.decision === null);
      return new Set(waits ? ofStep.map((approval) => approval.callId) : []);
    };
  }
}

/**
 * The calls of a reply's step that wait for a person: each of the step's approvals when one of them is still
 * undecided, else none (the step went on, or is about to).
 */
export type WaitingCallsOfStep = (step: number) => Promise<ReadonlySet<string>>;

export class ReplyWaitReader {
  private step: number | null = null;
  private readonly unannounced = new Set<string>();
  private announced: WaitingCall[] = [];

  constructor(private readonly waitingCallsOf: WaitingCallsOfStep) {}

  /** The calls the reply now waits on, when this line announced the last of its step's; else null. */
  async after(line: RunEvent): Promise<WaitingCall[] | null> {
    if (line.type !== 'approval.requested') return null;
    // The rows are stored before their lines go out, so the first line of a step finds all of them.
    if (this.step !== line.step) {
      this.step = line.step;
      this.unannounced.clear();
      this.announced = [];
      for (const callId of await this.waitingCallsOf(line.step)) this.unannounced.add(callId);
    }
    if (!this.unannounced.delete(line.call_id)) return null;
    const { step, call_id, name } = line;
    this.announced.push({ step, call_id, name, arguments: line.arguments });
    return this.unannounced.size === 0 ? this.announced : null;
  }
}
