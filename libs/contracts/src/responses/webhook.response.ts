import { WebhookEventType } from '../webhook-event';

/** A webhook as GET answers it: never its secret. */
export interface WebhookResponse {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  active: boolean;
  created_at: string;
}

/** POST /webhooks answers the secret, once. */
export interface CreatedWebhookResponse extends WebhookResponse {
  secret: string;
}

/** One try at delivering an event. */
export interface WebhookDeliveryResponse {
  id: string;
  event_id: string;
  type: WebhookEventType;
  attempt: number;
  status_code: number | null;
  error: string | null;
  created_at: string;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export interface WebhookRecord {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  active: boolean;
  createdAt: Date;
}

export interface WebhookAttemptRecord {
  id: string;
  eventId: string;
  type: WebhookEventType;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export function toWebhookResponse(webhook: WebhookRecord): WebhookResponse {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    active: webhook.active,
    created_at: webhook.createdAt.toISOString(),
  };
}

export function toWebhookDeliveryResponse(attempt: WebhookAttemptRecord): WebhookDeliveryResponse {
  return {
    id: attempt.id,
    event_id: attempt.eventId,
    type: attempt.type,
    attempt: attempt.attempt,
    status_code: attempt.statusCode,
    error: attempt.error,
    created_at: attempt.createdAt.toISOString(),
    next_attempt_at: attempt.nextAttemptAt?.toISOString() ?? null,
    delivered_at: attempt.deliveredAt?.toISOString() ?? null,
  };
}
