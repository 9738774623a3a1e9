import { Baseline1766800000000 } from './1766800000000-baseline';
import { ReplyBlockedPlanKept1766900000000 } from './1766900000000-reply-blocked-plan-kept';

/**
 * Every migration in order; a merged migration is never edited, a change is a new file. The baseline replaced the
 * 46 migrations before it (1763800000000 to 1766770000000): a database that ran them skips it, one that ran only
 * some of them must first migrate with the release before it (see the baseline).
 */
export const MIGRATIONS = [Baseline1766800000000, ReplyBlockedPlanKept1766900000000];

export {
  LAST_PRE_BASELINE_MIGRATION,
  partialChainMessage,
  PRE_BASELINE_MIGRATIONS,
  RELEASE_BEFORE_BASELINE,
} from './1766800000000-baseline';
