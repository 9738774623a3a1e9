import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { webhookOutboxSql } from '../sql/webhook-outbox.sql';
import { Scope } from './scope';
import { withTenant } from './tenant-scope';

/** A reply's feedback as stored. */
export interface MessageFeedback {
  messageId: string;
  threadId: string;
  agentId: string | null;
  userId: string | null;
  rating: 1 | -1;
  comment: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface NewFeedback {
  messageId: string;
  rating: 1 | -1;
  comment: string | null;
  /** The `message.feedback` webhook event's id (its webhook-id). */
  eventId: string;
}

/** Which feedback GET /feedback lists: newest reply first, `beforeMessageId` a page's cursor. */
interface FeedbackFilter {
  agentIds?: readonly string[];
  from?: Date;
  to?: Date;
  beforeMessageId?: string;
  limit: number;
}

interface FeedbackRow {
  message_id: string;
  thread_id: string;
  agent_id: string | null;
  user_id: string | null;
  rating: 1 | -1;
  comment: string | null;
  created_at: Date;
  updated_at: Date;
}

const toFeedback = (row: FeedbackRow): MessageFeedback => ({
  messageId: row.message_id,
  threadId: row.thread_id,
  agentId: row.agent_id,
  userId: row.user_id,
  rating: row.rating,
  comment: row.comment,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The body of a `message.feedback` event (webhookEvent's shape), from a stored row (alias `f`). */
const FEEDBACK_EVENT_PAYLOAD_SQL = `jsonb_build_object('type', 'message.feedback',
  'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'data', jsonb_build_object('message_id', f.message_id, 'thread_id', f.thread_id, 'agent_id', f.agent_id,
    'user_id', f.user_id, 'rating', f.rating, 'comment', f.comment,
    'created_at', to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(f.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`;

/** The `message.feedback` outbox rows of the rating `f` (event id $6). */
const FEEDBACK_OUTBOX_SQL = webhookOutboxSql(
  { orgId: 'f.org_id', id: '$6', type: "'message.feedback'", payload: FEEDBACK_EVENT_PAYLOAD_SQL },
  'f',
);

/** Feedback on replies (CONTRACTS §20). */
@Injectable()
export class FeedbackRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Rates an assistant reply the scope can see (its end user's when given), replacing an earlier rating, and
   * writes the `message.feedback` webhook outbox in the same statement. Null when the scope sees no such reply.
   */
  async put(
    scope: Scope,
    feedback: NewFeedback,
    agentIds?: readonly string[],
  ): Promise<MessageFeedback | null> {
    const [row] = await withTenant(this.db, scope, (tx) =>
      tx.query<FeedbackRow[]>(
        `WITH target AS (
         SELECT m.id, m.org_id, m.thread_id, m.agent_id, t.user_id FROM messages m JOIN threads t ON t.id = m.thread_id
         WHERE m.id = $1 AND m.org_id = $2 AND m.role = 'assistant' AND ($3::text IS NULL OR t.user_id = $3)
           AND ($7::uuid[] IS NULL OR m.agent_id = ANY ($7))),
       f AS (
         INSERT INTO message_feedback (message_id, org_id, thread_id, agent_id, user_id, rating, comment)
         SELECT id, org_id, thread_id, agent_id, user_id, $4, $5 FROM target
         ON CONFLICT (message_id) DO UPDATE SET rating = EXCLUDED.rating, comment = EXCLUDED.comment,
           updated_at = now()
         RETURNING *),
       hooks AS (${FEEDBACK_OUTBOX_SQL})
       SELECT * FROM f`,
        [
          feedback.messageId,
          scope.orgId,
          scope.userId ?? null,
          feedback.rating,
          feedback.comment,
          feedback.eventId,
          agentIds ?? null,
        ],
      ),
    );
    return row ? toFeedback(row) : null;
  }

  /** One end user's feedback, oldest reply first, a page after `afterMessageId` (the export reads it page by page). */
  async listOfUser(orgId: string, userId: string, afterMessageId: string | null, limit: number) {
    const rows: FeedbackRow[] = await withTenant(this.db, { orgId }, (tx) =>
      tx.query(
        `SELECT * FROM message_feedback WHERE org_id = $1 AND user_id = $2 AND ($3::uuid IS NULL OR message_id > $3)
       ORDER BY message_id LIMIT $4`,
        [orgId, userId, afterMessageId, limit],
      ),
    );
    return rows.map(toFeedback);
  }

  /** The organization's feedback, newest reply first. */
  async list(orgId: string, filter: FeedbackFilter): Promise<MessageFeedback[]> {
    const rows: FeedbackRow[] = await withTenant(this.db, { orgId }, (tx) =>
      tx.query(
        `SELECT * FROM message_feedback
       WHERE org_id = $1 AND ($2::uuid[] IS NULL OR agent_id = ANY ($2)) AND ($3::timestamptz IS NULL OR updated_at >= $3)
         AND ($4::timestamptz IS NULL OR updated_at < $4) AND ($5::uuid IS NULL OR message_id < $5)
       ORDER BY message_id DESC LIMIT $6`,
        [
          orgId,
          filter.agentIds ?? null,
          filter.from ?? null,
          filter.to ?? null,
          filter.beforeMessageId ?? null,
          filter.limit,
        ],
      ),
    );
    return rows.map(toFeedback);
  }
}
