import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ConflictError } from '@app/contracts';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db } from './scope';
import { withTenant } from './tenant-scope';

/**
 * An Idempotency-Key this request holds: the route records its answer with it in the transaction that stores
 * what the request did, so a request either committed and is answered again, or stored nothing and may run again.
 */
export class IdempotentWrite {
  /** Set once the answer is written (in the route's transaction): a route that forgot it is a bug, not a retry. */
  recorded = false;

  constructor(
    readonly orgId: string,
    /** The end user the request acts as ('' for none): part of the key, so each end user has a key space. */
    readonly userId: string,
    readonly key: string,
    /** Names this claim: a claim taken over past its lease is another one, and this request may no longer commit. */
    readonly token: string,
    /** The route's status, replayed with the answer. */
    readonly statusCode: number,
  ) {}
}

/** What claiming an Idempotency-Key found. */
type IdempotencyClaim =
  | { state: 'claimed'; token: string }
  | { state: 'processing'; fingerprint: string }
  | { state: 'completed'; fingerprint: string; statusCode: number; body: unknown };

export interface IdempotencyWindow {
  /** How long a finished answer is replayed (the draft's "24 hours"). */
  retentionMs: number;
  /** How long an unfinished claim holds the key: past it, the process that claimed it is taken for dead. */
  leaseMs: number;
}

export const KEY_IN_USE = 'A request with this Idempotency-Key is still being processed';

interface IdempotencyRow {
  fingerprint: string;
  status_code: number | null;
  response_body: unknown;
}

/**
 * What an answer belongs to, besides its caller: the thread it created or changed (null: none), whose erasure
 * takes the record with it. Every route that records an answer says it, so no record escapes an erasure.
 */
interface AnswerSubject {
  threadId: string | null;
}

/**
 * Takes the key ($1 organization, $7 end user, $2 key) for a claim ($6) when it is new, past its retention ($4 ms)
 * or an unfinished claim past its lease ($5 ms): one row back when taken.
 */
const CLAIM_KEY = preparedStatement({
  name: 'idempotency_claim',
  text: `INSERT INTO idempotency_keys (org_id, key, fingerprint, claim_token, user_id) VALUES ($1, $2, $3, $6, $7)
         ON CONFLICT (org_id, user_id, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, claim_token = EXCLUDED.claim_token, status_code = NULL,
               response_body = NULL, thread_id = NULL, created_at = now()
           WHERE idempotency_keys.created_at < now() - make_interval(secs => $4::double precision / 1000)
              OR (idempotency_keys.status_code IS NULL
                  AND idempotency_keys.created_at < now() - make_interval(secs => $5::double precision / 1000))
         RETURNING 1`,
});

const KEY_HOLDER = preparedStatement({
  name: 'idempotency_holder',
  text: `SELECT fingerprint, status_code, response_body FROM idempotency_keys
         WHERE org_id = $1 AND user_id = $2 AND key = $3`,
});

const RELEASE_KEY = preparedStatement({
  name: 'idempotency_release',
  text: `DELETE FROM idempotency_keys
         WHERE org_id = $1 AND user_id = $2 AND key = $3 AND claim_token = $4 AND status_code IS NULL`,
});

/**
 * Idempotency keys of one organization and end user each (CONTRACTS §21): a key sent by one end user (an
 * end-user token's, or the user a service key's request names) never finds another's answer. Erasure finds
 * records by their `user_id` and `thread_id` columns.
 */
@Injectable()
export class IdempotencyKeyRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Claims the key for this request in one statement, so two concurrent duplicates cannot both win: a new key,
   * one past its retention, or an unfinished claim past its lease is taken; otherwise the holder is returned.
   */
  async claim(
    orgId: string,
    userId: string,
    key: string,
    fingerprint: string,
    window: IdempotencyWindow,
  ): Promise<IdempotencyClaim> {
    for (;;) {
      const token = randomUUID();
      // Each statement alone under the wall (one round trip each, as before): every keyed POST runs them.
      const claimed = await runPreparedAsTenant(this.db, { orgId }, CLAIM_KEY, [
        orgId,
        key,
        fingerprint,
        window.retentionMs,
        window.leaseMs,
        token,
        userId,
      ]);
      if (claimed.length > 0) return { state: 'claimed', token };
      const [row] = await runPreparedAsTenant<IdempotencyRow>(this.db, { orgId }, KEY_HOLDER, [
        orgId,
        userId,
        key,
      ]);
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

  /**
   * Records the answer a retry will get, in `tx`: the transaction that stores what the request did, so the two
   * commit together or not at all. A claim taken over meanwhile (this request outlived its lease) is a 409, and
   * rolls the transaction back: the request that took it over is the one that stores.
   */
  async recordAnswer(tx: Db, write: IdempotentWrite, body: unknown, subject: AnswerSubject): Promise<void> {
    const [, updated] = (await withTenant(tx, write, (scoped) =>
      scoped.query(
        `UPDATE idempotency_keys SET status_code = $5, response_body = $6::json, thread_id = $7
         WHERE org_id = $1 AND user_id = $2 AND key = $3 AND claim_token = $4 AND status_code IS NULL`,
        [
          write.orgId,
          write.userId,
          write.key,
          write.token,
          write.statusCode,
          JSON.stringify(body ?? null),
          subject.threadId,
        ],
      ),
    )) as [unknown, number];
    if (updated === 0) throw new ConflictError(KEY_IN_USE);
    write.recorded = true;
  }

  /**
   * Gives a claim up after its request failed. Only while no answer is recorded: an answer committed with the
   * request's effect stays, and a retry gets it.
   */
  async release(write: IdempotentWrite): Promise<void> {
    await runPreparedAsTenant(this.db, write, RELEASE_KEY, [
      write.orgId,
      write.userId,
      write.key,
      write.token,
    ]);
  }

  /** Deletes keys past their retention; returns how many. */
  // crosses tenants: the gateway's periodic purge clears every organization's expired keys at once
  async purgeExpired(retentionMs: number): Promise<number> {
    const [, count] = (await this.db.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [retentionMs],
    )) as [unknown, number];
    return count;
  }
}
