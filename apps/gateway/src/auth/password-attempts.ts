import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Settings } from '@app/config';
import { TooManyRequestsError } from '@app/contracts';
import { REDIS } from '@app/redis';

/** What a bucket counts: password attempts at one target, or by one client address, within a window. */
interface Budget {
  name: string;
  attempts: number;
  windowSeconds: number;
}

/** The budgets of unauthenticated password checks (SECURITY.md, item 5 of issue 16). */
const ATTEMPT_BUDGETS = {
  /** Guesses at one share link's password, from anyone. */
  shareLink: { name: 'share-link', attempts: 10, windowSeconds: 900 },
  /** Share-link password guesses from one client address, at any link. */
  shareClient: { name: 'share-client', attempts: 30, windowSeconds: 900 },
  /** Queue-dashboard logins from one client address. */
  dashboardClient: { name: 'dashboard-client', attempts: 20, windowSeconds: 900 },
} as const satisfies Record<string, Budget>;

type BudgetName = keyof typeof ATTEMPT_BUDGETS;

/** An attempt that was allowed: give it back once the password proved right. */
export interface Attempt {
  succeeded(): Promise<void>;
}

/**
 * Throttles password checks that anyone can trigger (share links, the dashboard's basic auth), on Redis so
 * every gateway replica counts together (rate-limiter-flexible, atomic per key). An attempt is taken BEFORE the
 * password is checked, so concurrent guesses cannot outrun the count and the scrypt work a stranger can cause
 * is bounded; a right password gives its attempt back, so legitimate use never runs out.
 */
@Injectable()
export class PasswordAttempts {
  private readonly limiters: Record<BudgetName, RateLimiterRedis>;

  constructor(@Inject(REDIS) redis: Redis, settings: Settings) {
    const limiter = (budget: Budget) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${settings.redisPrefix}:throttle:${budget.name}`,
        points: budget.attempts,
        duration: budget.windowSeconds,
      });
    this.limiters = {
      shareLink: limiter(ATTEMPT_BUDGETS.shareLink),
      shareClient: limiter(ATTEMPT_BUDGETS.shareClient),
      dashboardClient: limiter(ATTEMPT_BUDGETS.dashboardClient),
    };
  }

  /**
   * Takes one attempt from each named bucket (e.g. the link and the client address); TooManyRequestsError,
   * with the wait before the fullest bucket has room again, when any is spent.
   */
  async take(buckets: Partial<Record<BudgetName, string>>): Promise<Attempt> {
    const taken = Object.entries(buckets) as [BudgetName, string][];
    const results = await Promise.allSettled(taken.map(([name, key]) => this.limiters[name].consume(key)));
    const refusals = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    // A Redis failure is not a refusal: it propagates, and no password is checked unthrottled.
    const failure = refusals.find((reason) => !(reason instanceof RateLimiterRes));
    if (failure) throw failure;
    if (refusals.length > 0) {
      const waitMs = Math.max(...(refusals as RateLimiterRes[]).map((refusal) => refusal.msBeforeNext));
      throw new TooManyRequestsError('Too many password attempts', Math.max(1, Math.ceil(waitMs / 1000)));
    }
    return {
      succeeded: async () => {
        await Promise.all(taken.map(([name, key]) => this.limiters[name].reward(key)));
      },
    };
  }
}
