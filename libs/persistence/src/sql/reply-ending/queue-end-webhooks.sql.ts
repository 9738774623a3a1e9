import { webhookOutboxSql } from '../webhook-outbox.sql';
import { ReplyEndingPlaceholders } from './reply-ending.parameters';

/**
 * The outbox rows reporting the end of the reply closed in `closed` to its organization's webhooks, written by
 * the statement that closes it: the event exists exactly when the end does (none when no reply was closed).
 */
export const queueEndWebhooksSql = (p: ReplyEndingPlaceholders, closed: string): string =>
  webhookOutboxSql(
    {
      orgId: `${closed}.org_id`,
      id: p.of('eventId'),
      type: p.of('eventType'),
      payload: p.of('eventPayload'),
    },
    closed,
  );
