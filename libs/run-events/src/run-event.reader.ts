import { Redis } from 'ioredis';
import { EVENT_FIELD, encodeEvent, seqOfEntryId, streamEntryId } from './codec';
import { runEventKeys } from './keys';
import { HEARTBEAT_LINE, RunEvent } from './run-event';
import { SharedSubscriber } from './shared-subscriber';

/** One line of a reply's stream, with the two fields the reader orders and stops by. */
interface Line {
  seq: number;
  type: string;
  text: string;
}

export interface FollowOptions {
  /** Only lines with a greater seq (-1: from the start). */
  after: number;
  /** Silence after which a heartbeat line is written (and Redis is polled, in case a publish was missed). */
  heartbeatMs: number;
  /**
   * Every line of the reply rebuilt from PostgreSQL once it is finished there, or null while it is still
   * live. Asked only when the Redis log has nothing for us and does not exist (expired, or never written).
   */
  storedLines: () => Promise<RunEvent[] | null>;
}

/** The lines of one reply, as JSON text without newline, ending after `message.completed`. */
export interface ReplyStream extends AsyncIterable<string> {
  /** Stops following (the client left): the iteration ends and the subscription is released. */
  close(): void;
  /** Whether it ended before its message.completed because it was closed (`close()` or a shutdown). */
  readonly interrupted: boolean;
}

const REPLAY_BATCH = 500;
const HEARTBEAT_TEXT = JSON.stringify(HEARTBEAT_LINE);

/**
 * Replay-then-follow of a reply's events (ARCHITECTURE "How a message flows", step 4). The order matters:
 * subscribe first, then read the Redis log from `after`, so a line is either in what XRANGE returns or
 * published after the subscription; lines seen twice are dropped by seq, lines published while the replay
 * runs wait and go out in seq order, and a live line beyond the next expected seq (a publish we missed, e.g.
 * across a reconnect) makes the reader fill the gap from the log first. Nothing lives in this process but
 * the subscription, so any gateway replica can serve any stream.
 */
export class RunEventReader {
  private readonly open = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: SharedSubscriber,
    private readonly redisPrefix: string,
  ) {}

  follow(messageId: string, options: FollowOptions): ReplyStream {
    const abort = new AbortController();
    if (this.closed) abort.abort();
    const lines = this.lines(messageId, options, abort);
    return {
      close: () => abort.abort(),
      get interrupted() {
        return abort.signal.aborted;
      },
      [Symbol.asyncIterator]: () => lines,
    };
  }

  /**
   * Ends every open stream, for a graceful shutdown: the HTTP server waits for responses in flight, and
   * these would never end on their own. Their clients resume with `after` on another replica.
   */
  closeAll(): void {
    this.closed = true;
    for (const abort of this.open) abort.abort();
  }

  private async *lines(
    messageId: string,
    options: FollowOptions,
    abort: AbortController,
  ): AsyncGenerator<string> {
    const { signal } = abort;
    const { stream, channel } = runEventKeys(this.redisPrefix, messageId);
    const inbox = new LiveInbox(signal);
    this.open.add(abort);
    const leave = await this.subscriber
      .join(channel, (message) => inbox.add(message))
      .catch((error: unknown) => {
        this.open.delete(abort);
        throw error;
      });
    try {
      let next = Math.max(options.after, -1) + 1;
      let { lines: polled, ended } = await this.catchUp(stream, next, options);
      for (;;) {
        if (ended) return;
        for (const line of polled) {
          if (line.seq !== next) continue;
          yield line.text;
          next += 1;
          if (line.type === 'message.completed') return;
        }
        polled = [];
        const woken = await inbox.wait(options.heartbeatMs);
        if (signal.aborted) return;
        if (!woken) {
          ({ lines: polled, ended } = await this.catchUp(stream, next, options));
          if (polled.length === 0 && !ended) yield HEARTBEAT_TEXT;
          continue;
        }
        for (const line of inbox.take()) {
          if (line.seq < next) continue;
          if (line.seq > next) {
            // A gap: what we missed is in the log (it is written before it is published).
            for (const missed of (await this.catchUp(stream, next, options)).lines) {
              if (missed.seq !== next) continue;
              yield missed.text;
              next += 1;
              if (missed.type === 'message.completed') return;
            }
            // Still beyond reach: the next poll fetches it from the log.
            if (line.seq !== next) continue;
          }
          yield line.text;
          next += 1;
          if (line.type === 'message.completed') return;
        }
      }
    } finally {
      this.open.delete(abort);
      await leave();
    }
  }

  /**
   * Lines from seq `from` on: from the Redis log, else (log gone, reply finished) from PostgreSQL. `ended`
   * when there is nothing from `from` on and never will be: the reply's last line is before it.
   */
  private async catchUp(
    stream: string,
    from: number,
    options: FollowOptions,
  ): Promise<{ lines: Line[]; ended: boolean }> {
    const lines: Line[] = [];
    // The first page and the log's last entry in one round trip, in MULTI: nothing is written between the two,
    // so an empty page with a last entry means that entry is before `from`.
    const [page, lastEntries] = (await this.redis
      .multi()
      .xrange(stream, streamEntryId(from), '+', 'COUNT', REPLAY_BATCH)
      .xrevrange(stream, '+', '-', 'COUNT', 1)
      .exec()
      .then(resultsOrThrow)) as [StreamEntry[], StreamEntry[]];
    let entries = page;
    for (;;) {
      for (const [id, fields] of entries) {
        const text = fieldValue(fields, EVENT_FIELD);
        if (text !== undefined) lines.push({ seq: seqOfEntryId(id), type: typeOf(text), text });
      }
      if (entries.length < REPLAY_BATCH) break;
      const start = streamEntryId(seqOfEntryId(entries[entries.length - 1][0]) + 1);
      entries = await this.redis.xrange(stream, start, '+', 'COUNT', REPLAY_BATCH);
    }
    if (lines.length > 0) return { lines, ended: false };
    // XADD is the only writer, so an existing log has entries; an empty answer means expired or not yet written.
    const [last] = lastEntries;
    if (last) return { lines, ended: typeOf(fieldValue(last[1], EVENT_FIELD) ?? '') === 'message.completed' };
    const stored = await options.storedLines();
    if (!stored) return { lines, ended: false };
    const rest = stored
      .filter((event) => event.seq >= from)
      .map((event) => ({ seq: event.seq, type: event.type, text: encodeEvent(event) }));
    return { lines: rest, ended: rest.length === 0 };
  }
}

/** Live lines received while the reader was busy, and the wake-up of a reader waiting for them. */
class LiveInbox {
  private lines: Line[] = [];
  private wake: ((woken: boolean) => void) | null = null;

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.wake?.(false), { once: true });
  }

  /** A published message: one or more lines, joined by newlines (the writer publishes a batch at once). */
  add(message: string): void {
    for (const text of message.split('\n')) {
      const head = lineHead(text);
      if (head) this.lines.push({ ...head, text });
    }
    if (this.lines.length > 0) this.wake?.(true);
  }

  /** The lines received so far, in seq order. */
  take(): Line[] {
    const lines = this.lines.sort((a, b) => a.seq - b.seq);
    this.lines = [];
    return lines;
  }

  /** True once lines are waiting; false after `timeoutMs` without any, or when aborted. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.lines.length > 0) return Promise.resolve(true);
    if (this.signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(false), timeoutMs);
      this.wake = (woken) => {
        this.wake = null;
        clearTimeout(timer);
        resolve(woken);
      };
    });
  }
}

/** The writer encodes `{"seq":N,"type":"T",…}`: read those two without parsing a line that may be large. */
const HEAD = /^\{"seq":(\d+),"type":"([a-z.]+)"/;

function lineHead(text: string): { seq: number; type: string } | null {
  const match = HEAD.exec(text);
  if (match) return { seq: Number(match[1]), type: match[2] };
  try {
    const { seq, type } = JSON.parse(text) as { seq?: unknown; type?: unknown };
    return typeof seq === 'number' && typeof type === 'string' ? { seq, type } : null;
  } catch {
    return null;
  }
}

type StreamEntry = [id: string, fields: string[]];

/** The replies of a MULTI, or the first error among them. */
function resultsOrThrow(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error('Redis transaction aborted');
  for (const [error] of results) if (error) throw error;
  return results.map(([, value]) => value);
}

function fieldValue(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function typeOf(text: string): string {
  return lineHead(text)?.type ?? '';
}
