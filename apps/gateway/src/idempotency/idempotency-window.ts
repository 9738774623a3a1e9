import { IdempotencyWindow } from '@app/persistence';

/**
 * A finished answer is replayed for 24 hours (the draft's suggestion); an unfinished claim holds its key one
 * minute, far beyond a request's bounded time, after which the gateway that claimed it is taken for dead.
 */
export const IDEMPOTENCY_WINDOW: IdempotencyWindow = { retentionMs: 24 * 3600 * 1000, leaseMs: 60 * 1000 };
