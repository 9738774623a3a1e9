import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-event';
import { DATE_TIME } from './message.response';

/** A webhook as GET answers it: never its secret. */
export class WebhookResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'https://example.com/hooks/parley' })
  url: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  events: WebhookEventType[];
  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;
  @ApiProperty()
  active: boolean;
  @ApiProperty(DATE_TIME)
  created_at: string;
}

/** POST /webhooks answers the secret, once. */
export class CreatedWebhookResponse extends WebhookResponse {
  @ApiProperty({
    description: 'whsec_ + base64 of 32 random bytes: the Standard Webhooks signing key. Shown only here.',
    pattern: '^whsec_',
  })
  secret: string;
}

/** One try at delivering an event. */
export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ description: 'The webhook-id header: the same across retries of one event.' })
  event_id: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  type: WebhookEventType;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Counts from 1.' })
  attempt: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null when the endpoint did not answer.' })
  status_code: number | null;
  @ApiProperty({ type: 'string', nullable: true })
  error: string | null;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty({
    ...DATE_TIME,
    nullable: true,
    description: 'When the next retry is due; null when none is.',
  })
  next_attempt_at: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  delivered_at: string | null;
}

interface WebhookRecord {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  active: boolean;
  createdAt: Date;
}

interface WebhookAttemptRecord {
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
