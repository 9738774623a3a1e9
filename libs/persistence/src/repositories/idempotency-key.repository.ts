import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What claiming an Idempotency-Key found. */
export type IdempotencyClaim =
  | { state: 'claimed' }
  | { state: 'processing'; fingerprint: string }
  | { state: 'completed'; fingerprint: string; statusCode: number; body: unknown };

export interface IdempotencyWindow {
  /** How long a finished answer is replayed (the draft's "24 hours"). */
  retentionMs: number;
  /** How long an unfinished claim holds the key: past it, the process that claimed it is taken for dead. */
  leaseMs: number;
}

interface IdempotencyRow {
  fingerprint: string;
  status_code: number | null;
  response_body: unknown;
}

/** Idempotency keys of one organization each: the key space of a key's organization is its own. */
@Injectable()
export class IdempotencyKeyRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Claims the key for this request in one statement, so two concurrent duplicates cannot both win: a new key,
   * one past its retention, or an unfinished claim past its lease is taken; otherwise the holder is returned.
   */
  async claim(
    orgId: string,
    key: string,
    fingerprint: string,
    window: IdempotencyWindow,
  ): Promise<IdempotencyClaim> {
    for (;;) {
      const claimed: unknown[] = await this.db.query(
        `INSERT INTO idempotency_keys (org_id, key, fingerprint) VALUES ($1, $2, $3)
         ON CONFLICT (org_id, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, response_body = NULL, created_at = now()
           WHERE idempotency_keys.created_at < now() - make_interval(secs => $4::double precision / 1000)
              OR (idempotency_keys.status_code IS NULL
                  AND idempotency_keys.created_at < now() - make_interval(secs => $5::double precision / 1000))
         RETURNING 1`,
        [orgId, key, fingerprint, window.retentionMs, window.leaseMs],
      );
      if (claimed.length > 0) return { state: 'claimed' };
      const [row] = (await this.db.query(
        `SELECT fingerprint, status_code, response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2`,
        [orgId, key],
      )) as IdempotencyRow[];
      // Released between the two statements: claim again.
      if (!row) continue;
      if (row.status_code === null) return { state: 'processing', fingerprint: row.fingerprint };
      return {
        state: 'completed',
        fingerprint: row.fingerprint,
        statusCode: row.status_code,
        body: row.response_body,
      };
    }
  }

  /** Records the answer a retry of the claimed request will get. */
  async complete(orgId: string, key: string, statusCode: number, body: unknown): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET status_code = $3, response_body = $4::json WHERE org_id = $1 AND key = $2`,
      [orgId, key, statusCode, JSON.stringify(body ?? null)],
    );
  }

  /** Gives an unfinished claim up (the request failed and stored nothing): a retry runs it afresh. */
  async release(orgId: string, key: string, fingerprint: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
       WHERE org_id = $1 AND key = $2 AND fingerprint = $3 AND status_code IS NULL`,
      [orgId, key, fingerprint],
    );
  }

  /** Deletes keys past their retention; returns how many. */
  async purgeExpired(retentionMs: number): Promise<number> {
    const [, count] = (await this.db.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [retentionMs],
    )) as [unknown, number];
    return count;
  }
}
