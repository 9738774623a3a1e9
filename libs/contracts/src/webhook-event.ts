import { v7 as uuidv7 } from 'uuid';

/** What a webhook can be told (CONTRACTS §14). */
export const WEBHOOK_EVENT_TYPES = [
  'message.completed',
  'message.failed',
  'message.cancelled',
  'message.requires_action',
  'source.synced',
  'source.failed',
  'message.feedback',
  'user.erased',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One event as every subscribed endpoint receives it: `id` is its `webhook-id`, `payload` the exact body. */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  payload: { type: WebhookEventType; timestamp: string; data: Record<string, unknown> };
}

export function webhookEvent(type: WebhookEventType, data: Record<string, unknown>): WebhookEvent {
  return { id: uuidv7(), type, payload: { type, timestamp: new Date().toISOString(), data } };
}

/** How a reply may end. */
type EndedReplyStatus = 'success' | 'error' | 'cancelled';

/** The webhook event that reports how a reply ended, its data the reply's final Message (`endedReplyMessage`). */
export function endedReplyEvent(status: EndedReplyStatus, message: Record<string, unknown>): WebhookEvent {
  return webhookEvent(endedReplyEventType(status), message);
}

function endedReplyEventType(status: EndedReplyStatus): WebhookEventType {
  if (status === 'success') return 'message.completed';
  return status === 'error' ? 'message.failed' : 'message.cancelled';
}
