import { Inject, Injectable } from '@nestjs/common';
import { ChainableCommander, Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Settings } from '@app/config';
import { REDIS } from '@app/redis';
import { decodeEvent, encodeEvent, EVENT_FIELD, runEventKeys, streamEntryId } from './redis-layout';
import { RunEvent, UnnumberedRunEvent } from './run-event';

/** Makes the caller the log's only writer (a run that held it before can append nothing more) and reads it. */
const CLAIM_SCRIPT = `
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
return redis.call('XRANGE', KEYS[1], '-', '+')`;

const SUPERSEDED = 'PARLEY_SUPERSEDED';

const LOG_LOST = 'PARLEY_LOG_LOST';

/**
 * For the owner only: a batch of events in one call. Each is XADDed under its own id, then the keys' TTLs are
 * renewed and the batch is published as one message, its lines joined by newlines (JSON lines hold none), so
 * a reader gets a step's burst of deltas in one delivery. XADD refuses an id not above the log's last one, and
 * the ids of a batch rise: a batch is refused at its first event or not at all, and `redis.call` then aborts
 * the script with nothing kept or published.
 *
 * A log that does not end right before the batch (or an owner token that is gone) lost writes its master had
 * acknowledged: a Redis Cluster replica promoted before they reached it. Appending on would leave a hole for
 * good, so the batch is refused with LOG_LOST and the run starts again from PostgreSQL, which holds every line.
 * (An erased reply's log and token are gone too: its next claim finds the row gone.)
 *
 * On a Redis Cluster the batch goes out with SPUBLISH: the channel shares the stream's hash tag, so the message
 * stays within the shard that owns the slot instead of crossing the cluster bus to every node.
 * KEYS: stream, owner. ARGV: token, ttl, field, channel, then entry id and line of each event.
 */
function appendScript(publish: 'PUBLISH' | 'SPUBLISH'): string {
  return `
local owner = redis.call('GET', KEYS[2])
if not owner then return redis.error_reply('${LOG_LOST}') end
if owner ~= ARGV[1] then return redis.error_reply('${SUPERSEDED}') end
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local expected = top and tonumber(string.match(top[1], '^0%-(%d+)$')) + 1 or 1
if tonumber(string.match(ARGV[5], '^0%-(%d+)$')) ~= expected then return redis.error_reply('${LOG_LOST}') end
local lines = {}
for i = 5, #ARGV, 2 do
  redis.call('XADD', KEYS[1], ARGV[i], ARGV[3], ARGV[i + 1])
  lines[#lines + 1] = ARGV[i + 1]
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('${publish}', ARGV[4], table.concat(lines, '\\n'))
return #lines`;
}

/**
 * For the owner only: the text of every delta in the log is withdrawn (CONTRACTS §24), each delta kept as an
 * empty one under its own seq, so a replay stays gap-free and its deltas join to the content PostgreSQL stores.
 * A stream's ids must rise, so the log is written again, whole, in this one call (its TTL kept); readers see it
 * before or after, never between. Lines the writer encodes start `{"seq":N,"type":"…"`.
 * KEYS: stream, owner. ARGV: token, field.
 */
const WITHDRAW_TEXT_SCRIPT = `
local owner = redis.call('GET', KEYS[2])
if not owner then return redis.error_reply('${LOG_LOST}') end
if owner ~= ARGV[1] then return redis.error_reply('${SUPERSEDED}') end
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
local lines = {}
local changed = false
for i, entry in ipairs(entries) do
  local line = entry[2][2]
  local seq = string.match(line, '^{"seq":(%d+),"type":"text%.delta"')
  if seq then
    local empty = '{"seq":' .. seq .. ',"type":"text.delta","delta":""}'
    if line ~= empty then
      line = empty
      changed = true
    end
  end
  lines[i] = line
end
if not changed then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
for i, entry in ipairs(entries) do
  redis.call('XADD', KEYS[1], entry[1], ARGV[2], lines[i])
end
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return #entries`;

/**
 * How long a live reply's log outlasts its last append: longer than any quiet stretch of a run (a slow tool or
 * model call), after which the log, and its owner with it, would be gone under the run.
 */
const LIVE_LOG_TTL_SECONDS = 3600;

/** How long the log keeps: a live reply's, and a finished one's (after which replays read PostgreSQL). */
interface LogTtls {
  live: number;
  finished: number;
}

/** Most events one script call carries: a long burst is split, so Redis is never held for long. */
const MAX_EVENTS_PER_CALL = 256;

type StreamEntry = [id: string, fields: string[]];

/** token, ttl, field, channel, then entry id and line of each event. */
type AppendRunEvents<Result> = (stream: string, owner: string, ...args: (string | number)[]) => Result;

type RunEventPipeline = ChainableCommander & { appendRunEvents: AppendRunEvents<RunEventPipeline> };

type RunEventRedis = Redis & {
  claimRunEvents(stream: string, owner: string, token: string, ttl: number): Promise<StreamEntry[]>;
  withdrawRunText(stream: string, owner: string, token: string, field: string): Promise<number>;
};

/**
 * Another run claimed this reply's log (this worker stalled and lost its job, or the reply was closed
 * elsewhere). The holder of the stale run must stop without writing anything more.
 */
export class RunSupersededError extends Error {
  constructor(messageId: string, seq: number) {
    super(`run of message ${messageId} is owned by another worker (refused at seq ${seq})`);
    this.name = 'RunSupersededError';
  }
}

/**
 * Where released events go: the writer gathers what every log of the process released in one turn of the event
 * loop into one pipeline (one socket write for all replies), so the cost of a streamed token in syscalls does
 * not grow with the number of replies streaming at once.
 */
interface EventSink {
  /** `log` has released events to send at the end of this turn. */
  schedule(log: RunEventLog): void;
  /** Sends what every log released, now. */
  sendNow(): void;
}

/**
 * One reply's events as their owning run writes them: seq continues after what is already in the log.
 *
 * Store, then publish: an appended event is held until the caller says PostgreSQL holds it (`release`, after the
 * step or result it belongs to is stored, or after a journal stored the held lines themselves), so no client
 * ever sees a line that a crash could take back. `onHeld` tells the journal that lines wait. A text delta that
 * follows a held delta joins it (`appendText`: one line, one seq, their texts joined; CONTRACTS §5), until a
 * journal takes that line to store it; what is held together travels together (one journal row, one script
 * call, one publish).
 *
 * Released events are sent in batches: a log's events in one script call (one publish) while the run goes on,
 * so a step waits for Redis once, at `flush`, not once per event. A refused append stops every later one.
 */
export class RunEventLog {
  /** Appended, not yet stored in PostgreSQL: not sent. */
  private held: RunEvent[] = [];
  private batch: RunEvent[] = [];
  private written: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** The first seq a journal may neither store nor release (see keepFromJournal); Infinity when none. */
  private journalLimit = Infinity;
  /** Each line's JSON, written once and kept while the line is held or sending (journal and Redis share it). */
  private readonly lines = new WeakMap<RunEvent, string>();
  /** The last seq a journal took to store: that line is written as it was, so no delta may join it any more. */
  private journaledThrough = -1;
  /** Called when an event is held while none was: the first of a batch the journal should store. */
  onHeld: ((log: RunEventLog) => void) | null = null;

  constructor(
    private readonly redis: RunEventRedis,
    private readonly sink: EventSink,
    private readonly keys: { stream: string; channel: string; owner: string },
    private readonly ttls: LogTtls,
    private readonly token: string,
    readonly messageId: string,
    private next: number,
  ) {}

  get nextSeq(): number {
    return this.next;
  }

  /**
   * Numbers the event and holds it until `release`. Throws the failure of an earlier append
   * (RunSupersededError when another run owns the log).
   */
  append(event: UnnumberedRunEvent): RunEvent {
    if (this.failure) throw this.failure;
    const numbered = { seq: this.next++, ...event } as RunEvent;
    this.held.push(numbered);
    if (this.held.length === 1) this.onHeld?.(this);
    return numbered;
  }

  /**
   * Appends a text delta: joined to the last held line when that is a delta no journal has taken and the two
   * go out together (the same side of `keepFromJournal`), else a line of its own. Returns the line either way,
   * so its seq says whether it joined. Lines a run restores with their own seqs go through `append`, never here.
   */
  appendText(delta: string): RunEvent {
    if (this.failure) throw this.failure;
    const last = this.held[this.held.length - 1];
    if (
      last?.type === 'text.delta' &&
      last.seq > this.journaledThrough &&
      (this.journalLimit === Infinity || last.seq >= this.journalLimit)
    ) {
      last.delta += delta;
      return last;
    }
    return this.append({ type: 'text.delta', delta });
  }

  /**
   * The events appended from now on go out only with the run's own `release` (of every event), never with a
   * journal's: lines that must not reach a client before a statement the run has yet to commit.
   */
  keepFromJournal(): void {
    this.journalLimit = Math.min(this.journalLimit, this.next);
  }

  /** The events held now that a journal may store and release, oldest first. */
  takeHeld(): RunEvent[] {
    const taken = this.held.filter((event) => event.seq < this.journalLimit);
    if (taken.length > 0) this.journaledThrough = taken[taken.length - 1].seq;
    return taken;
  }

  /** The line's JSON: encoded once, whether the journal or Redis asks first (a line no longer changes then). */
  encoded(event: RunEvent): string {
    let line = this.lines.get(event);
    if (line === undefined) {
      line = encodeEvent(event);
      this.lines.set(event, line);
    }
    return line;
  }

  /** Whether events wait for PostgreSQL. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /**
   * PostgreSQL holds the events up to `throughSeq` (every event appended so far when omitted): they go to the
   * replay stream and the live channel at the end of this turn of the event loop.
   */
  release(throughSeq = this.next - 1): void {
    let count = 0;
    while (count < this.held.length && this.held[count].seq <= throughSeq) count++;
    if (throughSeq >= this.journalLimit) this.journalLimit = Infinity;
    if (count === 0) return;
    this.batch.push(...this.held.splice(0, count));
    this.sink.schedule(this);
  }

  /**
   * Throws RunSupersededError when another run claimed the log since this one did, RunEventLogLostError when the
   * claim itself is gone (lost in a failover, or the reply erased), or an earlier failure.
   */
  async assertOwner(): Promise<void> {
    if (this.failure) throw this.failure;
    const owner = await this.redis.get(this.keys.owner);
    if (owner === null) this.failure = new RunEventLogLostError(this.messageId, this.next);
    else if (owner !== this.token) this.failure = new RunSupersededError(this.messageId, this.next);
    if (this.failure) throw this.failure;
  }

  /**
   * Withdraws the text of every delta appended so far (a guardrail stopped the reply, CONTRACTS §24): those not
   * sent yet go out empty, and those in the log are made empty there (WITHDRAW_TEXT_SCRIPT), so no replay shows
   * the text. Their seqs stay. Throws as `flush` does.
   */
  async withdrawText(): Promise<void> {
    const empty = (event: RunEvent): RunEvent =>
      event.type === 'text.delta' ? { ...event, delta: '' } : event;
    this.held = this.held.map(empty);
    this.batch = this.batch.map(empty);
    // What was sent is in the log before the log is written again.
    await this.flush();
    try {
      await this.redis.withdrawRunText(this.keys.stream, this.keys.owner, this.token, EVENT_FIELD);
    } catch (error) {
      this.fail(error, this.next);
      throw this.failure;
    }
  }

  /** Resolves when every event released so far is in Redis; throws the first failure. */
  async flush(): Promise<void> {
    if (this.batch.length > 0) this.sink.sendNow();
    await this.written;
    if (this.failure) throw this.failure;
  }

  /** Adds this log's released events to the writer's pipeline; `sent` settles with the pipeline's results. */
  addTo(pipeline: RunEventPipeline): ((results: [Error | null, unknown][], offset: number) => number) | null {
    if (this.batch.length === 0 || this.failure) {
      this.batch = [];
      return null;
    }
    const events = this.batch;
    this.batch = [];
    const batches: RunEvent[][] = [];
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_CALL) {
      const batch = events.slice(start, start + MAX_EVENTS_PER_CALL);
      batches.push(batch);
      pipeline.appendRunEvents(
        this.keys.stream,
        this.keys.owner,
        this.token,
        // The reply's last line: the log now only serves replays, which PostgreSQL can also answer.
        batch[batch.length - 1].type === 'message.completed' ? this.ttls.finished : this.ttls.live,
        EVENT_FIELD,
        this.keys.channel,
        ...batch.flatMap((event) => [streamEntryId(event.seq), this.encoded(event)]),
      );
    }
    let settle!: () => void;
    const sent = new Promise<void>((resolve) => (settle = resolve));
    this.written = Promise.all([this.written, sent]).then(() => undefined);
    return (results, offset) => {
      const mine = results.slice(offset, offset + batches.length);
      const index = mine.findIndex(([error]) => error);
      if (index >= 0) this.fail(mine[index][0], batches[index][0].seq);
      settle();
      return batches.length;
    };
  }

  /**
   * An append failed from `seq` on (a refused script, or the whole pipeline lost with its connection): the log
   * takes no more, and its run learns why at its next flush.
   */
  fail(error: unknown, seq: number): void {
    this.failure ??= appendFailure(error, this.messageId, seq);
  }
}

/**
 * Redis lost lines of the reply's log that it had acknowledged (a failover): the run must not append after the
 * hole. Thrown as an ordinary failure, so the job is retried and its next run claims the log again and restores
 * the lost lines from PostgreSQL (same seqs) before it goes on.
 */
export class RunEventLogLostError extends Error {
  constructor(messageId: string, seq: number) {
    super(
      `the log of message ${messageId} lost lines before seq ${seq} (a Redis failover): the run starts again`,
    );
    this.name = 'RunEventLogLostError';
  }
}

function appendFailure(error: unknown, messageId: string, seq: number): Error {
  if (error instanceof Error && error.message.includes(SUPERSEDED))
    return new RunSupersededError(messageId, seq);
  if (error instanceof Error && error.message.includes(LOG_LOST))
    return new RunEventLogLostError(messageId, seq);
  return error as Error;
}

/** The worker's side of run events: claims a reply's log for appending, and reads back what it already holds. */
@Injectable()
export class RunEventWriter implements EventSink {
  private readonly redis: RunEventRedis;
  /** Logs with released events, sent together at the end of the turn. */
  private readonly pending = new Set<RunEventLog>();
  private sendScheduled = false;

  constructor(
    private readonly settings: Settings,
    @Inject(REDIS) redis: Redis,
  ) {
    if (!('appendRunEvents' in redis)) {
      redis.defineCommand('claimRunEvents', { numberOfKeys: 2, lua: CLAIM_SCRIPT });
      redis.defineCommand('withdrawRunText', { numberOfKeys: 2, lua: WITHDRAW_TEXT_SCRIPT });
      redis.defineCommand('appendRunEvents', {
        numberOfKeys: 2,
        lua: appendScript(redis.isCluster ? 'SPUBLISH' : 'PUBLISH'),
      });
    }
    this.redis = redis as RunEventRedis;
  }

  /** Every event already written for the reply, in seq order (empty when none, or expired). */
  async written(messageId: string): Promise<RunEvent[]> {
    const { stream } = runEventKeys(this.settings.redisPrefix, messageId);
    return decodeEntries(await this.redis.xrange(stream, '-', '+'));
  }

  /**
   * Makes the caller the reply's only writer, in one round trip with reading what the log already holds: a
   * run that owned it before fails its next append, and nothing it wrote before the claim is missed.
   *
   * Then asks `stored` whether the reply still exists: an erasure deletes the reply's row, then its log (CONTRACTS
   * §21). A claim before that deletion loses its log to it (every later append is refused: the owner token is
   * gone); a claim after it finds the row gone, removes what it just set and throws RunSupersededError. So no log
   * of an erased reply outlives its erasure.
   */
  async claim(
    messageId: string,
    stored: () => Promise<boolean>,
  ): Promise<{ log: RunEventLog; written: RunEvent[] }> {
    const keys = runEventKeys(this.settings.redisPrefix, messageId);
    const token = randomUUID();
    const finished = this.settings.runEventsTtlSeconds;
    const ttls = { live: Math.max(LIVE_LOG_TTL_SECONDS, finished), finished };
    const written = decodeEntries(await this.redis.claimRunEvents(keys.stream, keys.owner, token, ttls.live));
    if (!(await stored())) {
      await this.redis.del(keys.stream, keys.owner);
      throw new RunSupersededError(messageId, 0);
    }
    const nextSeq = written.length === 0 ? 0 : written[written.length - 1].seq + 1;
    return { log: new RunEventLog(this.redis, this, keys, ttls, token, messageId, nextSeq), written };
  }

  schedule(log: RunEventLog): void {
    this.pending.add(log);
    if (!this.sendScheduled) {
      this.sendScheduled = true;
      setImmediate(() => this.sendNow());
    }
  }

  sendNow(): void {
    this.sendScheduled = false;
    if (this.pending.size === 0) return;
    const logs = [...this.pending];
    this.pending.clear();
    // A Redis Cluster runs a pipeline on one node only, and replies' logs spread over the masters (one hash tag
    // each): there every reply gets a pipeline of its own, else events of replies on two masters fail together.
    if (this.redis.isCluster) for (const log of logs) this.send([log]);
    else this.send(logs);
  }

  private send(logs: RunEventLog[]): void {
    const pipeline = this.redis.pipeline() as unknown as RunEventPipeline;
    const settlers = logs.flatMap((log) => {
      const settle = log.addTo(pipeline);
      return settle ? [{ log, settle }] : [];
    });
    if (settlers.length === 0) return;
    pipeline.exec().then(
      (results) => {
        let offset = 0;
        for (const { settle } of settlers)
          offset += settle((results ?? []) as [Error | null, unknown][], offset);
      },
      (error: unknown) => {
        for (const { log, settle } of settlers) {
          log.fail(error, log.nextSeq);
          settle([], 0);
        }
      },
    );
  }
}

function decodeEntries(entries: StreamEntry[]): RunEvent[] {
  return entries.map(([, fields]) => decodeEvent(fields[fields.indexOf(EVENT_FIELD) + 1]));
}
