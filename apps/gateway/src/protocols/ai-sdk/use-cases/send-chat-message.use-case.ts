import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AiSdkChatDto,
  APPROVAL_REASON_MAX_CHARS,
  AiSdkUiMessage,
  InvalidInputError,
  isRowId,
  MESSAGE_CONTENT_MAX_CHARS,
  pydanticIssue,
  valueErrorIssue,
} from '@app/contracts';
import { PostMessage, RegenerateReply, StartThread } from '@app/chat';
import { Caller } from '@app/identity';
import { AnswerWaitingCalls, CallAnswer } from '../../answer-waiting-calls';
import { boundThreadId } from '../../client-threads';
import { AiSdkChatRepository, ChatOwner, MessageRepository, ThreadRepository } from '@app/persistence';
import { OpenReplyStream } from '../../../reply-stream/open-reply-stream.use-case';
import { chatOwner, chatThreadId } from '../chat-owner';
import { ChatReplyStream } from '../ui-message-sse';

/** `agent_version` rides at the top of the transport's body, beside `agent_id`. */
const AGENT_VERSION_FIELD = ['body', 'agent_version'];

/**
 * POST /ai-sdk/chat (CONTRACTS §17): the last user message of the AI SDK's request, posted to the chat's
 * thread (a new chat id starts one, bound to it), answered with the reply's stream. Parley holds the history,
 * so the messages before it are not read. `trigger: "regenerate-message"` regenerates a reply of the chat's
 * thread instead (§19).
 */
@Injectable()
export class SendChatMessage {
  constructor(
    private readonly chats: AiSdkChatRepository,
    private readonly threads: ThreadRepository,
    private readonly startThread: StartThread,
    private readonly postMessage: PostMessage,
    private readonly regenerateReply: RegenerateReply,
    private readonly answerWaitingCalls: AnswerWaitingCalls,
    private readonly db: DataSource,
    private readonly messages: MessageRepository,
    private readonly openReplyStream: OpenReplyStream,
  ) {}

  async execute(caller: Caller, body: AiSdkChatDto): Promise<ChatReplyStream> {
    const owner = chatOwner(caller, body.user_id, ['body', 'user_id']);
    if (body.trigger === 'regenerate-message') return this.regenerate(caller, owner, body);
    const answers = approvalAnswers(body.messages);
    if (answers.length > 0) return this.answerApprovals(caller, owner, body.id, answers);
    const message = { content: lastUserText(body.messages), file_ids: body.file_ids };
    const threadId = await boundThreadId(this.chats, this.threads, owner, body.id);
    let replyId: string;
    if (threadId) {
      const reply = await this.postMessage.execute(caller, {
        threadId,
        userId: owner.userId,
        body: { message, options: { agent_version: body.agent_version } },
        agentVersionAt: AGENT_VERSION_FIELD,
      });
      replyId = reply.id;
    } else {
      if (body.agent_id === undefined) {
        throw new InvalidInputError([pydanticIssue('missing', ['body', 'agent_id'], body)]);
      }
      const thread = await this.startThread.execute(
        caller,
        {
          message,
          options: { agent_id: body.agent_id, user_id: owner.userId, agent_version: body.agent_version },
        },
        { agentVersionAt: AGENT_VERSION_FIELD },
      );
      await this.chats.bind(owner, body.id, thread.id);
      replyId = thread.messages[thread.messages.length - 1].id;
    }
    const lines = await this.openReplyStream.execute(caller, { messageId: replyId, userId: owner.userId });
    return { replyId, lines };
  }

  /**
   * `useChat`'s regenerate(): the client dropped the reply it regenerates (and what followed) and names it in
   * `messageId`, whose id is the reply's own (the `start` chunk gave it); absent, or naming a user message (ids
   * only the client knows), the last reply the thread shows is regenerated. A reply still live is interrupted:
   * asking for another answer supersedes it.
   */
  private async regenerate(caller: Caller, owner: ChatOwner, body: AiSdkChatDto): Promise<ChatReplyStream> {
    const threadId = await chatThreadId(this.chats, owner, body.id);
    const named =
      body.messageId && isRowId(body.messageId)
        ? await this.messages.findInThread(owner, threadId, body.messageId)
        : null;
    const reply = await this.regenerateReply.execute(caller, {
      threadId,
      userId: owner.userId,
      body: {
        message_id: named?.role === 'assistant' ? named.id : null,
        options: { multitask_strategy: 'interrupt' },
      },
    });
    const lines = await this.openReplyStream.execute(caller, { messageId: reply.id, userId: owner.userId });
    return { replyId: reply.id, lines };
  }

  /**
   * `useChat`'s addToolApprovalResponse(): the last message is the waiting reply, its answered tool parts carry
   * the decisions (the approval id is the call id, as `tool-approval-request` gave it). Each is recorded as
   * POST /chat/messages/{id}/approvals would (CONTRACTS §19); a call decided already (the client sent its answer
   * again) is passed over; one past its deadline is 409 `Approval expired`, the call denied (CONTRACTS §21). The
   * answer is the reply's stream after its last `approval.requested` line: the client holds the lines before it,
   * and the continuation updates the same assistant message.
   */
  private async answerApprovals(
    caller: Caller,
    owner: ChatOwner,
    chatId: string,
    answers: CallAnswer[],
  ): Promise<ChatReplyStream> {
    const threadId = await chatThreadId(this.chats, owner, chatId);
    const { replyId, lastRequestSeq } = await this.answerWaitingCalls.execute(
      caller,
      owner,
      threadId,
      answers,
    );
    const lines = await this.openReplyStream.execute(caller, {
      messageId: replyId,
      userId: owner.userId,
      after: lastRequestSeq ?? undefined,
    });
    return { replyId, lines };
  }
}

/** A decision the client's UI recorded on a tool part (AI SDK 6 `approval-responded`). */

/** The answered approvals of the request's last message, when it is an assistant one; else none. */
function approvalAnswers(messages: AiSdkUiMessage[]): CallAnswer[] {
  const index = messages.length - 1;
  const last = messages[index];
  if (last?.role !== 'assistant' || !Array.isArray(last.parts)) return [];
  return last.parts.flatMap((part, partIndex) => {
    const approval = part?.state === 'approval-responded' ? part.approval : undefined;
    if (typeof approval?.id !== 'string' || typeof approval.approved !== 'boolean') return [];
    const reason = typeof approval.reason === 'string' ? approval.reason : null;
    // The limits of POST /chat/messages/{id}/approvals, where this reason was sent.
    const loc = ['body', 'messages', index, 'parts', partIndex, 'approval', 'reason'];
    if (reason !== null && reason.length > APPROVAL_REASON_MAX_CHARS) {
      throw new InvalidInputError([
        pydanticIssue('string_too_long', loc, reason, { max_length: APPROVAL_REASON_MAX_CHARS }),
      ]);
    }
    if (reason?.includes('\u0000')) {
      throw new InvalidInputError([valueErrorIssue(loc, reason, 'text holds a NUL character')]);
    }
    return [
      { callId: approval.id, decision: approval.approved ? ('approve' as const) : ('deny' as const), reason },
    ];
  });
}

/** The new message: the text parts of the last user message, joined by newlines (so directives stay lines). */
function lastUserText(messages: AiSdkUiMessage[]): string {
  const index = messages.map((message) => message.role).lastIndexOf('user');
  const loc = ['body', 'messages', index];
  if (index < 0) {
    throw new InvalidInputError([valueErrorIssue(['body', 'messages'], messages, 'no user message')]);
  }
  const parts = Array.isArray(messages[index].parts) ? messages[index].parts : [];
  const texts = parts.flatMap((part) =>
    part?.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
  );
  const content = texts.join('\n');
  if (!content.trim()) {
    throw new InvalidInputError([
      valueErrorIssue(loc, messages[index], 'the last user message has no text part'),
    ]);
  }
  if (content.length > MESSAGE_CONTENT_MAX_CHARS) {
    throw new InvalidInputError([
      pydanticIssue('string_too_long', [...loc, 'parts'], content, { max_length: MESSAGE_CONTENT_MAX_CHARS }),
    ]);
  }
  // PostgreSQL cannot store a NUL character, as for any message (README, "Bad input").
  if (content.includes('\u0000')) {
    throw new InvalidInputError([valueErrorIssue([...loc, 'parts'], content, 'text holds a NUL character')]);
  }
  return content;
}
