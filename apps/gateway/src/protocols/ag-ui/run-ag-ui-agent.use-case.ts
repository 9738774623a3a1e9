import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { AiSdkChatRepository, ChatOwner, MessageRepository, ThreadRepository } from '@app/persistence';
import { endUserOfCaller } from '../../auth/pin-end-user';
import { AnswerWaitingCalls } from '../answer-waiting-calls';
import { AskAgent, invalidProtocolInput } from '../ask-agent.use-case';
import { boundThreadId } from '../client-threads';
import { endingStream, EventStream, ReplyRunEvents, RunEventOrHeartbeat } from '../reply-run-events';
import { ReplyWaitReader, ReplyWaits } from '../reply-waits';
import { SequencedEvents } from '../server-sent-events';
import { AgUiEvent, AgUiTranslation } from './ag-ui-translation';
import { AG_UI_AGENT_VERSION_FIELD, AgUiRunRequest } from './run-agent-input';

export const AG_UI_THREAD_NOT_FOUND = 'Thread not found';

/**
 * POST /ag-ui/agents/{agent_id} (CONTRACTS §22): an AG-UI run is the part of a reply's stream from where the
 * request picks it up to the reply's end, or to where it waits for a person. A run with a message asks the agent
 * (a new thread bound to the client's thread id, as §17's chat ids, or a follow-up in it); a run with `resume`
 * answers the approvals the previous run ended at and continues after them; a run with `after` (Last-Event-ID)
 * continues the thread's latest reply after that event, on any gateway.
 */
@Injectable()
export class RunAgUiAgent {
  constructor(
    private readonly db: DataSource,
    private readonly chats: AiSdkChatRepository,
    private readonly threads: ThreadRepository,
    private readonly messages: MessageRepository,
    private readonly askAgent: AskAgent,
    private readonly answerWaitingCalls: AnswerWaitingCalls,
    private readonly runEvents: ReplyRunEvents,
    private readonly waits: ReplyWaits,
  ) {}

  async execute(
    caller: Caller,
    agentId: string,
    request: AgUiRunRequest,
    after?: number,
  ): Promise<EventStream<SequencedEvents>> {
    const userId = endUserOfCaller(caller, request.userId);
    if (!userId) {
      throw invalidProtocolInput(
        ['body', 'forwardedProps', 'user_id'],
        null,
        'forwardedProps.user_id (the end user) is required with a service key',
      );
    }
    const owner = { orgId: caller.orgId, userId };
    const { replyId, from } =
      after !== undefined
        ? { replyId: await this.latestReply(owner, request.threadId), from: after }
        : request.resume.length > 0
          ? await this.answerInterrupts(caller, owner, request)
          : { replyId: await this.ask(caller, owner, agentId, request), from: -1 };
    const lines = await this.runEvents.open(caller, replyId, userId);
    const translation = new AgUiTranslation(replyId, { threadId: request.threadId, runId: request.runId });
    return endingStream(lines, translated(lines, translation, this.waits.of(caller, replyId), from));
  }

  private async ask(
    caller: Caller,
    owner: ChatOwner,
    agentId: string,
    request: AgUiRunRequest,
  ): Promise<string> {
    const threadId = await boundThreadId(this.chats, this.threads, owner, request.threadId);
    const asked = await this.askAgent.execute(caller, {
      agentId,
      content: request.content ?? '',
      threadId: threadId ?? undefined,
      userId: owner.userId,
      agentVersion:
        request.agentVersion === undefined
          ? undefined
          : { version: request.agentVersion, at: AG_UI_AGENT_VERSION_FIELD },
    });
    if (!threadId) await this.chats.bind(owner, request.threadId, asked.threadId);
    return asked.replyId;
  }

  /** The thread's newest live reply, or its last reply when none is live (a run that ended meanwhile). */
  private async latestReply(owner: ChatOwner, clientThreadId: string): Promise<string> {
    const threadId = await boundThreadId(this.chats, this.threads, owner, clientThreadId);
    if (!threadId) throw new NotFoundError(AG_UI_THREAD_NOT_FOUND);
    const live = await this.messages.liveReplies(owner, threadId);
    if (live.length > 0) return live[live.length - 1].id;
    const shown = await this.messages.listActiveBranch(owner, threadId);
    const last = shown.filter((message) => message.role === 'assistant').pop();
    if (!last) throw new NotFoundError(AG_UI_THREAD_NOT_FOUND);
    return last.id;
  }

  /**
   * The resume entries answer the calls the thread's waiting reply asked about, as POST
   * /chat/messages/{id}/approvals would (a call decided already is passed over; one past its deadline is 409).
   * The run continues after the last approval request: the previous run ended there.
   */
  private async answerInterrupts(
    caller: Caller,
    owner: ChatOwner,
    request: AgUiRunRequest,
  ): Promise<{ replyId: string; from: number }> {
    const threadId = await boundThreadId(this.chats, this.threads, owner, request.threadId);
    if (!threadId) throw new NotFoundError(AG_UI_THREAD_NOT_FOUND);
    const { replyId, lastRequestSeq } = await this.answerWaitingCalls.execute(
      caller,
      owner,
      threadId,
      request.resume,
    );
    return { replyId, from: lastRequestSeq ?? -1 };
  }
}

/**
 * The run's events: RUN_STARTED (and what the lines before left open) before the first line after `after`, then
 * each line's events, to the reply's end or the interrupt where it waits for a person (then true).
 */
async function* translated(
  lines: EventStream<RunEventOrHeartbeat>,
  translation: AgUiTranslation,
  waits: ReplyWaitReader,
  after: number,
): AsyncGenerator<SequencedEvents, boolean> {
  let started = false;
  for await (const line of lines) {
    if (line === null) {
      yield null;
      continue;
    }
    const opening: AgUiEvent[] = line.seq > after && !started ? translation.start() : [];
    started ||= opening.length > 0;
    const events = [...opening, ...translation.next(line)];
    const waiting = await waits.after(line);
    if (waiting) events.push(...translation.interrupted(waiting));
    if (line.seq > after && events.length > 0) yield { seq: line.seq, events };
    if (waiting || line.type === 'message.completed') {
      lines.close();
      return true;
    }
  }
  return false;
}
