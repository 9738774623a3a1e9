import { Injectable } from '@nestjs/common';
import { ApprovalDecision, ConflictError } from '@app/contracts';
import { APPROVAL_EXPIRED, DecideApproval } from '@app/chat';
import { Caller } from '@app/identity';
import { ToolApprovalRepository } from '@app/persistence';
import { storedReplyLines } from '@app/run-events';
import { endUserOfCaller } from '../../auth/pin-end-user';
import { AskAgent } from '../ask-agent.use-case';
import { CancelReply } from '../cancel-reply';
import { endingStream, EventStream, ReplyRunEvents, RunEventOrHeartbeat } from '../reply-run-events';
import { ReplyWaitReader, ReplyWaits } from '../reply-waits';
import { SequencedEvents } from '../server-sent-events';
import { VisibleReplies, VisibleReply } from '../visible-replies';
import { A2A_ERRORS, A2aError, invalidParams, TASK_NOT_FOUND } from './a2a-errors';
import { A2aSend } from './a2a-request';
import { A2aStreamResponse, a2aStateOf, A2aTask, A2aTaskTranslation } from './a2a-task-translation';

/** A task and where its updates continue: after `after` (a seq), -1 for all of them. */
export interface A2aTaskRef {
  taskId: string;
  contextId: string;
  after: number;
}

/**
 * A2A's tasks on Parley's replies (CONTRACTS §22): a task is a reply, its `contextId` the reply's thread. A
 * message starts a thread, or with a known `contextId` posts a follow-up to it; a message naming a task that
 * waits for a person answers its approvals (§19) and the task goes on. Updates are the reply's run events
 * translated (A2aTaskTranslation), read through the one reply stream, so they resume from any line's seq.
 */
@Injectable()
export class A2aTasks {
  constructor(
    private readonly askAgent: AskAgent,
    private readonly visible: VisibleReplies,
    private readonly runEvents: ReplyRunEvents,
    private readonly waits: ReplyWaits,
    private readonly approvals: ToolApprovalRepository,
    private readonly decideApproval: DecideApproval,
    private readonly cancelReply: CancelReply,
  ) {}

  async send(caller: Caller, agentId: string, send: A2aSend): Promise<A2aTaskRef> {
    const userId = endUserOfCaller(caller, send.userId);
    if (!userId) throw invalidParams('metadata.user_id (the end user) is required with a service key');
    if (send.taskId) {
      const task = await this.find(caller, agentId, send.taskId, userId);
      if (task.reply.status === 'requires_action') return this.answerApprovals(caller, task, send, userId);
      // A task that ended asking questions (input-required) is answered in its context, as a follow-up.
      send = { ...send, contextId: send.contextId ?? task.thread.id };
    }
    if (!send.text.trim()) throw invalidParams('the message has no text part');
    const asked = await this.askAgent.execute(caller, {
      agentId,
      content: send.text,
      threadId: send.contextId,
      userId,
      agentVersion: send.agentVersion,
    });
    return { taskId: asked.replyId, contextId: asked.threadId, after: -1 };
  }

  /** The task's updates after `after`, live, to the reply's end or to where it waits for a person. */
  async updates(caller: Caller, ref: A2aTaskRef): Promise<EventStream<SequencedEvents>> {
    const lines = await this.runEvents.open(caller, ref.taskId);
    const translation = new A2aTaskTranslation(ref);
    return endingStream(lines, translated(lines, translation, this.waits.of(caller, ref.taskId), ref.after));
  }

  /** Waits as `updates` would, and answers the task it came to. */
  async settled(caller: Caller, ref: A2aTaskRef): Promise<A2aTask> {
    const lines = await this.runEvents.open(caller, ref.taskId);
    const translation = new A2aTaskTranslation(ref);
    const updates = endingStream(
      lines,
      translated(lines, translation, this.waits.of(caller, ref.taskId), ref.after),
    );
    for await (const batch of updates) void batch;
    // A stream ends before its last line only when the gateway shuts down under it.
    if (updates.interrupted)
      throw new A2aError(A2A_ERRORS.internalError, 'The reply stream ended early; retry');
    return translation.task();
  }

  /** A task as stored now (GetTask): a finished one is what its stream ended with. */
  async get(caller: Caller, agentId: string, taskId: string): Promise<A2aTask> {
    const { reply, thread } = await this.find(caller, agentId, taskId);
    const lines = storedReplyLines(reply, {
      status: reply.status,
      content: reply.content,
      error_code: reply.errorCode,
      questions: reply.questions,
    });
    const translation = new A2aTaskTranslation({ taskId: reply.id, contextId: thread.id });
    // A live reply's rebuilt lines end with a completion it has not reached: left out.
    for (const line of reply.live ? lines.slice(0, -1) : lines) translation.next(line);
    const task = translation.task();
    return reply.live ? { ...task, status: { state: a2aStateOf(reply.status) } } : task;
  }

  /** CancelTask: a live reply is cancelled and the task answered once it ended; a finished one cannot be. */
  async cancel(caller: Caller, agentId: string, taskId: string): Promise<A2aTask> {
    const task = await this.find(caller, agentId, taskId);
    if (!task.reply.live) {
      throw new A2aError(A2A_ERRORS.taskNotCancelable, `Task is ${a2aStateOf(task.reply.status, true)}`);
    }
    await this.cancelReply.execute(caller, task, TASK_NOT_FOUND);
    return this.settled(caller, { taskId: task.reply.id, contextId: task.thread.id, after: -1 });
  }

  /** The task's reply when the caller may see it and it is of this agent; else A2A's TaskNotFoundError. */
  async find(caller: Caller, agentId: string, taskId: string, userId?: string): Promise<VisibleReply> {
    const found = await this.visible.get(caller, taskId, TASK_NOT_FOUND, userId);
    if (found.thread.agentId !== agentId) throw new A2aError(A2A_ERRORS.taskNotFound, TASK_NOT_FOUND);
    return found;
  }

  /**
   * The message answers the calls the task waits on, as POST /chat/messages/{id}/approvals would: a `data` part
   * `{"call_id"?, "decision": "approve" | "deny", "reason"?}` per call (without call_id: every waiting call), or
   * the text `approve` / `deny` for all. The updates continue after the last approval request the caller saw.
   */
  private async answerApprovals(
    caller: Caller,
    { reply, thread }: VisibleReply,
    send: A2aSend,
    userId: string,
  ): Promise<A2aTaskRef> {
    const decisions = parseDecisions(send);
    const waiting = (await this.approvals.ofVisibleReply(caller, reply.id)).filter(
      (approval) => approval.decision === null,
    );
    for (const call of waiting) {
      const decided = decisions.get(call.callId) ?? decisions.get(EVERY_CALL);
      if (!decided) throw invalidParams(`no decision for the waiting call ${call.callId}`);
      await this.decideApproval
        .execute(caller, {
          messageId: reply.id,
          body: { call_id: call.callId, decision: decided.decision, reason: decided.reason },
          userId,
        })
        .catch((error: unknown) => {
          // A call decided meanwhile (the answer sent twice) is passed over; a late one is refused as on the route.
          if (!(error instanceof ConflictError) || error.message === APPROVAL_EXPIRED) throw error;
        });
    }
    const requested = (reply.events ?? [])
      .filter((line) => line.type === 'approval.requested')
      .map((line) => Number(line.seq));
    return { taskId: reply.id, contextId: thread.id, after: requested.length ? Math.max(...requested) : -1 };
  }
}

const EVERY_CALL = '*';

interface Decided {
  decision: ApprovalDecision;
  reason: string | null;
}

function parseDecisions(send: A2aSend): Map<string, Decided> {
  const decisions = new Map<string, Decided>();
  const blanket = send.text.trim().toLowerCase();
  if (blanket === 'approve' || blanket === 'deny')
    decisions.set(EVERY_CALL, { decision: blanket, reason: null });
  send.data.forEach((data, index) => {
    const fields = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    if (fields.decision !== 'approve' && fields.decision !== 'deny') {
      throw invalidParams(`data part ${index}: decision must be "approve" or "deny"`);
    }
    const callId = typeof fields.call_id === 'string' ? fields.call_id : EVERY_CALL;
    const reason = typeof fields.reason === 'string' ? fields.reason : null;
    decisions.set(callId, { decision: fields.decision, reason });
  });
  if (decisions.size === 0) {
    throw invalidParams(
      'the task waits for approvals: answer "approve" or "deny", or a data part with decision',
    );
  }
  return decisions;
}

/**
 * The lines as update batches after `after`, ending at the reply's end or where it waits for a person; returns
 * true then (false when the lines ran out first).
 */
async function* translated(
  lines: EventStream<RunEventOrHeartbeat>,
  translation: A2aTaskTranslation,
  waits: ReplyWaitReader,
  after: number,
): AsyncGenerator<SequencedEvents, boolean> {
  for await (const line of lines) {
    if (line === null) {
      yield null;
      continue;
    }
    const updates: A2aStreamResponse[] = translation.next(line);
    const waiting = await waits.after(line);
    if (waiting) updates.push(...translation.waiting(waiting));
    if (line.seq > after && updates.length > 0) yield { seq: line.seq, events: updates };
    if (waiting || line.type === 'message.completed') {
      // The reader's subscription is released now, not when the reply goes on.
      lines.close();
      return true;
    }
  }
  return false;
}
