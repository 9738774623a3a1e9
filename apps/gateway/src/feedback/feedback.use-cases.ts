import { Injectable } from '@nestjs/common';
import {
  cursorRowId,
  FEEDBACK_LISTING_DEFAULT_LIMIT,
  FeedbackResponse,
  InvalidInputError,
  isRowId,
  ListFeedbackQuery,
  NotFoundError,
  Page,
  pageOf,
  PutFeedbackDto,
  valueErrorIssue,
  webhookEvent,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { FeedbackRepository, MessageFeedback } from '@app/persistence';

export const toFeedbackResponse = (feedback: MessageFeedback): FeedbackResponse => ({
  message_id: feedback.messageId,
  thread_id: feedback.threadId,
  agent_id: feedback.agentId,
  user_id: feedback.userId,
  rating: feedback.rating,
  comment: feedback.comment,
  created_at: feedback.createdAt.toISOString(),
  updated_at: feedback.updatedAt.toISOString(),
});

/** PUT /chat/messages/{message_id}/feedback: one rating per reply, a later one replacing it; webhook `message.feedback`. */
@Injectable()
export class PutFeedback {
  constructor(private readonly feedback: FeedbackRepository) {}

  async execute(
    caller: Caller,
    messageId: string,
    body: PutFeedbackDto,
    userId: string | undefined,
  ): Promise<FeedbackResponse> {
    if (body.rating !== 1 && body.rating !== -1) {
      throw new InvalidInputError([
        valueErrorIssue(['body', 'rating'], body.rating, 'rating must be 1 or -1'),
      ]);
    }
    // The event's id is set here; the statement writes its body with the stored row.
    const { id: eventId } = webhookEvent('message.feedback', {});
    const stored = await this.feedback.put(
      { orgId: caller.orgId, userId },
      { messageId, rating: body.rating, comment: body.comment ?? null, eventId },
      caller.endUser?.agentIds ?? undefined,
    );
    if (!stored) throw new NotFoundError('Message not found');
    return toFeedbackResponse(stored);
  }
}

/** GET /feedback: the organization's feedback, newest reply first. */
@Injectable()
export class ListFeedback {
  constructor(private readonly feedback: FeedbackRepository) {}

  async execute(caller: Caller, query: ListFeedbackQuery): Promise<Page<FeedbackResponse>> {
    const limit = query.limit ?? FEEDBACK_LISTING_DEFAULT_LIMIT;
    const rows = await this.feedback.list(caller.orgId, {
      agentIds: query.agent_id?.filter(isRowId),
      from: instant(query.from, 'from'),
      to: instant(query.to, 'to'),
      beforeMessageId: query.before === undefined ? undefined : cursorRowId(query.before),
      limit,
    });
    return pageOf(rows, limit, (row) => row.messageId, toFeedbackResponse);
  }
}

/** A query's date-time, refused (422) when it names no instant. */
function instant(value: string | undefined, field: 'from' | 'to'): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    throw new InvalidInputError([valueErrorIssue(['query', field], value, 'must be an ISO 8601 date-time')]);
  }
  return at;
}
