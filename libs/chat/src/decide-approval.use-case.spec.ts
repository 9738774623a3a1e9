import { Logger } from '@nestjs/common';
import { ApprovalDecision, ConflictError, NotFoundError, Question } from '@app/contracts';
import { Caller } from '@app/identity';
import { ToolApproval, ToolApprovalRepository } from '@app/persistence';
import {
  APPROVAL_EXPIRED,
  CALL_NOT_WAITING,
  DecideApproval,
  MESSAGE_NOT_FOUND,
} from './decide-approval.use-case';
import { MemoryChat, ORG } from './testing/memory-chat';

const caller: Caller = { orgId: ORG, keyId: 'key-1', requestId: 'req-1' };

const HOUR_MS = 3_600_000;

/**
 * The approvals of waiting calls, in memory, decided as ToolApprovalRepository.decide does: only a call still
 * undecided of a reply that waits for a person; every call of the reply past its deadline is denied with it; the
 * reply runs again when none is left undecided, else asks about the ones left.
 */
class MemoryApprovals {
  readonly calls: ToolApproval[] = [];

  constructor(private readonly chat: MemoryChat) {}

  wait(messageId: string, callId: string, name: string, expiresInMs = HOUR_MS): void {
    this.calls.push({
      messageId,
      step: 1,
      callId,
      name,
      arguments: {},
      decision: null,
      reason: null,
      expiresAt: new Date(Date.now() + expiresInMs),
    });
  }

  call(callId: string): ToolApproval | undefined {
    return this.calls.find((call) => call.callId === callId);
  }

  readonly repository = {
    decide: (
      _tx: unknown,
      _scope: unknown,
      messageId: string,
      callId: string,
      decision: ApprovalDecision,
      reason: string | null,
      questionsOf: (waiting: ToolApproval[]) => Question[],
    ) => {
      const message = this.chat.message(messageId);
      const undecided = () =>
        this.calls.filter((call) => call.messageId === messageId && call.decision === null);
      const target = undecided().find((call) => call.callId === callId);
      if (!message?.live || message.status !== 'requires_action' || !target)
        return Promise.resolve('not_waiting' as const);
      const past = (call: ToolApproval) => call.expiresAt.getTime() <= Date.now();
      const expired = past(target);
      for (const call of undecided()) {
        if (past(call)) Object.assign(call, { decision: 'deny', reason: 'timed out' });
        else if (call === target) Object.assign(call, { decision, reason });
      }
      const stillWaiting = undecided();
      Object.assign(
        message,
        stillWaiting.length === 0
          ? { status: 'running', questions: null }
          : { status: 'requires_action', questions: questionsOf(stillWaiting) },
      );
      return Promise.resolve({ stillWaiting, expired });
    },
  } as unknown as ToolApprovalRepository;
}

/** A thread `t1` whose reply `r1` waits for a person on the calls it is given. */
function world(waiting: (approvals: MemoryApprovals) => void) {
  const chat = new MemoryChat();
  chat.seedThread('t1', [
    ['u1', 'user', 'success', null],
    ['r1', 'assistant', 'requires_action', 'u1'],
  ]);
  const approvals = new MemoryApprovals(chat);
  waiting(approvals);
  const useCase = new DecideApproval(
    chat.db,
    chat.threadRepository,
    chat.messageRepository,
    chat.agentRepository,
    approvals.repository,
    chat.agentRuns,
  );
  return { chat, approvals, useCase };
}

const approve = (callId: string, userId?: string) => ({
  messageId: 'r1',
  body: { call_id: callId, decision: 'approve' as const, reason: null },
  userId,
});

describe('DecideApproval', () => {
  it("runs the reply again once the step's last call is decided: enqueued after the decision commits", async () => {
    const { chat, approvals, useCase } = world((calls) => calls.wait('r1', 'call-1', 'clock'));

    const answered = await useCase.execute(caller, approve('call-1'));

    expect(answered).toMatchObject({ id: 'r1', status: 'running' });
    expect(approvals.call('call-1')).toMatchObject({ decision: 'approve' });
    expect(chat.timeline).toEqual(['begin', 'commit', 'enqueueAgain r1']);
    expect(chat.enqueuedAgain).toEqual([{ messageId: 'r1', threadId: 't1', requestId: 'req-1' }]);
  });

  it('keeps the reply waiting while a call of its step is undecided, asking only about that one', async () => {
    const { chat, useCase } = world((calls) => {
      calls.wait('r1', 'call-1', 'clock');
      calls.wait('r1', 'call-2', 'weather');
    });

    const answered = await useCase.execute(caller, approve('call-1'));

    expect(answered).toMatchObject({ status: 'requires_action' });
    expect(chat.message('r1')?.questions).toEqual([
      { prompt: 'Allow weather with {}?', options: ['approve', 'deny'] },
    ]);
    expect(chat.enqueuedAgain).toEqual([]);
  });

  it('refuses a second decision of the same call (409), which changes nothing and enqueues nothing again', async () => {
    const { chat, approvals, useCase } = world((calls) => calls.wait('r1', 'call-1', 'clock'));
    await useCase.execute(caller, approve('call-1'));

    await expect(
      useCase.execute(caller, {
        messageId: 'r1',
        body: { call_id: 'call-1', decision: 'deny', reason: 'changed my mind' },
      }),
    ).rejects.toThrow(new ConflictError(CALL_NOT_WAITING));

    expect(approvals.call('call-1')).toMatchObject({ decision: 'approve', reason: null });
    expect(chat.message('r1')).toMatchObject({ status: 'running', live: true });
    expect(chat.timeline.slice(-2)).toEqual(['begin', 'rollback']);
    expect(chat.enqueuedAgain).toHaveLength(1);
  });

  it('answers 409 Approval expired past the deadline, yet keeps the denial and runs the reply on', async () => {
    const { chat, approvals, useCase } = world((calls) => calls.wait('r1', 'call-1', 'clock', -1000));

    await expect(useCase.execute(caller, approve('call-1'))).rejects.toThrow(
      new ConflictError(APPROVAL_EXPIRED),
    );

    expect(approvals.call('call-1')).toMatchObject({ decision: 'deny', reason: 'timed out' });
    expect(chat.timeline).toEqual(['begin', 'commit', 'enqueueAgain r1']);
  });

  it("answers 404 for a message of another end user's thread, an archived thread's, or one that does not exist", async () => {
    const { chat, approvals, useCase } = world((calls) => calls.wait('r1', 'call-1', 'clock'));
    const notFound = new NotFoundError(MESSAGE_NOT_FOUND);

    await expect(useCase.execute(caller, approve('call-1', 'bob'))).rejects.toThrow(notFound);
    await expect(useCase.execute(caller, { ...approve('call-1'), messageId: 'nope' })).rejects.toThrow(
      notFound,
    );
    chat.threads.get('t1')!.archivedAt = new Date();
    await expect(useCase.execute(caller, approve('call-1'))).rejects.toThrow(notFound);

    expect(approvals.call('call-1')?.decision).toBeNull();
    expect(chat.enqueuedAgain).toEqual([]);
  });

  it('answers the stored decision when the run cannot be enqueued (Redis lost): the sweep enqueues it', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const { chat, useCase } = world((calls) => calls.wait('r1', 'call-1', 'clock'));
      chat.queueDown = true;

      await expect(useCase.execute(caller, approve('call-1', 'alice'))).resolves.toMatchObject({
        status: 'running',
      });
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ messageId: 'r1' }),
        'decision stored but run not enqueued; the sweep will enqueue it',
      );
    } finally {
      logged.mockRestore();
    }
  });
});
