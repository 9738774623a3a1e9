import {
  AgentRecord,
  ConversationFileResponse,
  MessageRecord,
  toMessageResponse,
} from './responses/message.response';
import { webhookEvent, WebhookEvent, WebhookEventType } from './webhook-event';

/** How a reply may end. */
type EndedReplyStatus = 'success' | 'error' | 'cancelled';

/**
 * An ended reply's final Message, the one rendering of it: the `message.completed` line of its stream (at the
 * finish, and replayed from PostgreSQL) and the data of the webhook event that reports the end carry this.
 */
export function endedReplyMessage(
  reply: MessageRecord,
  agent: AgentRecord | null | undefined,
  files: ConversationFileResponse[] = [],
): Record<string, unknown> {
  return { ...toMessageResponse(reply, agent, files) };
}

/** The webhook event that reports how a reply ended, its data the reply's final Message (`endedReplyMessage`). */
export function endedReplyEvent(status: EndedReplyStatus, message: Record<string, unknown>): WebhookEvent {
  return webhookEvent(endedReplyEventType(status), message);
}

function endedReplyEventType(status: EndedReplyStatus): WebhookEventType {
  if (status === 'success') return 'message.completed';
  return status === 'error' ? 'message.failed' : 'message.cancelled';
}
