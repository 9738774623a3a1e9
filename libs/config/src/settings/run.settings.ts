import { WholeNumber } from '../setting-kinds';

/**
 * The cap on a reply's tool rounds (spec 4.2): the one its request asked for, else the server default. Every
 * reply is stored with its cap, so a later change of the default leaves the replies already asked alone.
 */
export const maxStepsOf = (
  settings: Pick<RunSettings, 'defaultMaxSteps'>,
  requested?: number | null,
): number => requested ?? settings.defaultMaxSteps;

/** Chat and agent runs: steps, concurrency, job locks, sweeps, reply streams, context. */
export class RunSettings {
  /** Server default for options.max_steps (spec 4.2). */
  @WholeNumber({ min: 1 })
  defaultMaxSteps = 60;

  /**
   * Agent runs one worker process executes at once. A run spends nearly all its time waiting on a model, so a
   * slot costs little but memory: hundreds per process, and CPU decides how many a process really serves.
   */
  @WholeNumber({ min: 1, max: 5000 })
  agentRunConcurrency = 500;

  /**
   * An optional hard cap on the runs one organization may have running at once, across every worker (0: none).
   * Fair share needs no cap: the queue serves each organization's k-th outstanding reply before anyone's
   * (k+1)-th, so an organization alone may use every slot and organizations with waiting replies share them.
   */
  @WholeNumber({ min: 0, max: 100000 })
  agentRunOrgConcurrency = 0;

  /** BullMQ lock duration: a worker that stops renewing it for this long is considered stalled. */
  @WholeNumber({ min: 1000 })
  jobLockMs = 30000;

  /** How often BullMQ looks for stalled jobs. */
  @WholeNumber({ min: 500 })
  jobStalledIntervalMs = 30000;

  /** How often a worker sweeps forgotten replies (pending with no job, running with their job gone). */
  @WholeNumber({ min: 100 })
  runSweepIntervalMs = 15000;

  /** A live reply untouched this long is checked by the sweep. */
  @WholeNumber({ min: 100 })
  runSweepAfterMs = 30000;

  /**
   * How long a tool call may wait for a person's decision (CONTRACTS §19); unanswered by then counts as deny.
   * The worker's sweep resumes replies whose wait is over, so it holds even if Redis lost its data.
   */
  @WholeNumber({ min: 1 })
  approvalTimeoutSeconds = 86400;

  /**
   * Seconds a finished reply's event log stays in Redis before replays fall back to PostgreSQL (which holds the
   * same lines): a client reconnecting soon after the end reads Redis, and Redis holds only the last few minutes'
   * replies. A live reply's log lasts at least an hour past its last line.
   */
  @WholeNumber({ min: 1 })
  runEventsTtlSeconds = 600;

  /** Idle time after which the stream writes a heartbeat line (CONTRACTS §5). */
  @WholeNumber({ min: 10 })
  streamHeartbeatMs = 15000;

  /**
   * How long a reply's streamed words may wait to be stored before they are published (store, then publish):
   * the words of one interval are stored for every run of a worker in one statement, and go out together. A
   * reply's first words do not wait for it (StreamJournal).
   */
  @WholeNumber({ min: 5, max: 1000 })
  streamHoldMs = 100;

  /** A reply stream whose client takes no bytes for this long is cut; the client resumes with `after`. */
  @WholeNumber({ min: 100 })
  streamStallTimeoutMs = 10000;

  /**
   * Bytes all stalled reply streams of a gateway may hold together (unsent, in the gateway and its sockets);
   * a stream that stalls beyond it is cut at once instead of after STREAM_STALL_TIMEOUT_MS.
   */
  @WholeNumber({ min: 65536 })
  streamMaxStalledBytes = 64 * 1024 * 1024;

  /** Context budget, in tokens, of the thread history given to the model (oldest turns dropped first). */
  @WholeNumber({ min: 100 })
  contextBudgetTokens = 100000;

  /**
   * Long threads (CONTRACTS §19): a run whose history is larger than this, in estimated tokens, first summarizes
   * the older messages; 0 turns it off. An agent's own `compaction` setting wins.
   */
  @WholeNumber({ min: 0 })
  compactionThresholdTokens = 60000;

  /**
   * Replies one eval run (CONTRACTS §23) has live at once, across every worker. A run adds at most this many to its
   * organization's backlog, which orders the run queue's fair share: the organization's live users wait behind at
   * most these, however many items the run has. Higher finishes a run sooner and makes those users wait longer.
   */
  @WholeNumber({ min: 1, max: 1000 })
  evalItemsInFlight = 8;

  /**
   * How long a rubric's judge model may take to answer before the item's score fails, saying so. A worker that
   * died while its judge was asked has its item taken back twice this long after it claimed it, and judged again.
   */
  @WholeNumber({ min: 1000 })
  evalJudgeTimeoutMs = 60000;
}
