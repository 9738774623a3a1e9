import { PartialType } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-event';
import { Ge, Le, MaxChars, MaxItems, MinItems, Nullable, OneOf, UniqueItems } from './rules';

const WEBHOOK_URL_MAX_CHARS = 2048;
const WEBHOOK_DESCRIPTION_MAX_CHARS = 1000;
const WEBHOOK_DELIVERIES_MAX_LIMIT = 100;
export const WEBHOOK_DELIVERIES_DEFAULT_LIMIT = 20;

/** POST /webhooks (CONTRACTS §14). Whether the URL may be delivered to is checked by the use case (DNS). */
export class CreateWebhookDto {
  @IsString()
  @MaxChars(WEBHOOK_URL_MAX_CHARS)
  url: string;

  @IsArray()
  @MinItems(1)
  @OneOf(WEBHOOK_EVENT_TYPES, { each: true })
  @MaxItems(WEBHOOK_EVENT_TYPES.length)
  @UniqueItems()
  events: WebhookEventType[];

  @IsOptional()
  @Nullable()
  @IsString()
  @MaxChars(WEBHOOK_DESCRIPTION_MAX_CHARS)
  description?: string | null;

  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

/** PUT /webhooks/{id}: a partial update of `url`, `events`, `description`, `active`. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto) {}

/** GET /webhooks/{id}/deliveries. */
export class ListWebhookDeliveriesQuery {
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(WEBHOOK_DELIVERIES_MAX_LIMIT)
  limit?: number;
}
