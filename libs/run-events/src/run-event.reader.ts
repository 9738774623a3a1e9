import { Redis } from 'ioredis';
import { EVENT_FIELD, encodeEvent, runEventKeys, seqOfEntryId, streamEntryId } from './redis-layout';
import { HEARTBEAT_LINE, RunEvent } from './run-event';
import { SharedSubscriber } from './shared-subscriber';

/** One line of a reply's stream, with the two fields the reader orders and stops by. */
interface Line {
  seq: number;
  type: string;
  bytes: Buffer;
}

interface FollowOptions {
  /** Only lines with a greater seq (-1: from the start). */
  after: number;
  /** Silence after which a heartbeat line is written (and Redis is polled, in case a publish was missed). */
  heartbeatMs: number;
  /**
   * Every line of the reply rebuilt from PostgreSQL once it is finished there, or null while it is still
   * live. Asked only when the Redis log cannot finish the stream: it does not exist (expired, or never
   * written), it has a hole, or a heartbeat's silence found it without its completion.
   */
  storedLines: () => Promise<RunEvent[] | null>;
}

/**
 * The lines of one reply, each the UTF-8 bytes of its JSON text without newline, ending after
 * `message.completed`. Bytes, not strings: a line received once is passed on to every stream that follows
 * the reply without a copy per stream (a large reply's last line holds the whole content).
 */
export interface ReplyStream extends AsyncIterable<Buffer> {
  /** Stops following (the client left): the iteration ends and the subscription is released. */
  close(): void;
  /** Whether it ended before its message.completed because it was closed (`close()` or a shutdown). */
  readonly interrupted: boolean;
}

/**
 * The log is read in pages of about this many bytes (the entry count adapts to the size of the lines), so a
 * stream holds one modest page at a time, whatever the reply's size.
 */
const REPLAY_PAGE_BYTES = 64 * 1024;
const REPLAY_PAGE_ENTRIES = { first: 64, min: 8, max: 500 };
const HEARTBEAT_BYTES = Buffer.from(JSON.stringify(HEARTBEAT_LINE));
/**
 * Live lines a stream keeps while its client is busy taking earlier ones. Past this, they are dropped and read
 * back from the log when the client gets to them (the writer stores a line before it publishes it), so a
 * client that does not read costs the gateway this much at most, not the rest of the reply. (One message
 * larger than this is kept when it is all the stream holds: it is the Buffer every stream of the reply shares.)
 */
export const LIVE_INBOX_MAX_BYTES = 256 * 1024;

/** The next seq a stream owes its client. */
interface Cursor {
  next: number;
}

/**
 * Replay-then-follow of a reply's events (ARCHITECTURE "How a message flows", step 4). The order matters:
 * subscribe first, then read the Redis log from `after`, so a line is either in what XRANGE returns or
 * published after the subscription; lines seen twice are dropped by seq, and a live line beyond the next
 * expected seq (a publish we missed), a resubscription after Redis reconnects, or live lines dropped because
 * the client fell behind, all make the reader read the log again from where its client is. The log is read a
 * page at a time, as fast as the client takes it. Nothing lives in this process but the subscription, so any
 * gateway replica can serve any stream.
 *
 * Never a line with seq ≤ `after` (CONTRACTS §5): asked for `after` at or beyond the last line of an ended reply,
 * the stream answers no line and closes, since its reader already has `message.completed`.
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
    // Open from now, not from its first read: a shutdown between the two must end it too.
    this.open.add(abort);
    const lines = this.lines(messageId, options, abort);
    return {
      close: () => {
        abort.abort();
        // A stream closed before its first read never runs the generator's `finally`.
        this.open.delete(abort);
      },
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
  ): AsyncGenerator<Buffer> {
    const { signal } = abort;
    const { stream, channel } = runEventKeys(this.redisPrefix, messageId);
    const inbox = new LiveInbox(signal, LIVE_INBOX_MAX_BYTES);
    const leave = await this.subscriber
      .join(
        channel,
        (message) => inbox.add(message),
        () => inbox.requireCatchUp(),
      )
      .catch((error: unknown) => {
        this.open.delete(abort);
        throw error;
      });
    try {
      const cursor: Cursor = { next: Math.max(options.after, -1) + 1 };
      let readLog = true;
      for (;;) {
        if (readLog) {
          readLog = false;
          if (yield* this.replay(stream, cursor, options)) return;
          if (signal.aborted) return;
        }
        const woken = await inbox.wait(options.heartbeatMs);
        if (signal.aborted) return;
        if (!woken) {
          // Silence: look at the log in case a publish was missed, else tell the client we are still here.
          const before = cursor.next;
          if (yield* this.replay(stream, cursor, options, { silent: true })) return;
          if (cursor.next === before) yield HEARTBEAT_BYTES;
          continue;
        }
        const { lines, catchUp } = inbox.take();
        if (catchUp) {
          readLog = true;
          continue;
        }
        for (const line of lines) {
          if (line.seq > cursor.next) {
            // A gap: what we missed is in the log (it is written before it is published), and so is the rest.
            readLog = true;
            break;
          }
          if (line.seq < cursor.next) {
            // Already sent, or at or before `after`; the reply's last line means the client has the whole reply.
            if (line.type === 'message.completed') return;
            continue;
          }
          yield line.bytes;
          cursor.next += 1;
          if (line.type === 'message.completed') return;
        }
      }
    } finally {
      this.open.delete(abort);
      await leave();
    }
  }

  /**
   * Sends the lines from `cursor.next` on, a page at a time as the client takes them: from the Redis log, else
   * from PostgreSQL once the reply has ended there. True once the stream is complete: it sent
   * `message.completed`, the reply's last line.
   *
   * PostgreSQL is asked when the log cannot finish the stream: it is gone (expired, or never written), it has a
   * hole where the client is (lines its master acknowledged and a promoted replica never got), or, after a
   * `silent` heartbeat's wait, it still ends without its completion (the reply may have ended while its last
   * lines were lost). A reply still live there answers null: its run restores the lost lines, and we wait.
   */
  private async *replay(
    stream: string,
    cursor: Cursor,
    options: FollowOptions,
    { silent } = { silent: false },
  ): AsyncGenerator<Buffer, boolean> {
    // The first page and the log's last entry in one round trip, in MULTI: nothing is written between the two,
    // so an empty page with a last entry means that entry is before `from`.
    let count = REPLAY_PAGE_ENTRIES.first;
    const [firstPage, lastEntries] = (await this.redis
      .multi()
      .xrangeBuffer(stream, streamEntryId(cursor.next), '+', 'COUNT', count)
      .xrevrangeBuffer(stream, '+', '-', 'COUNT', 1)
      .exec()
      .then(resultsOrThrow)) as [StreamEntry[], StreamEntry[]];
    const from = cursor.next;
    let hole = false;
    let page: StreamEntry[] | null = firstPage;
    pages: while (page) {
      let bytes = 0;
      for (const [id, fields] of page) {
        const line = fieldValue(fields, EVENT_FIELD);
        if (line === undefined) continue;
        if (seqOfEntryId(id.toString()) !== cursor.next) {
          hole = true;
          break pages;
        }
        bytes += line.length;
        yield line;
        cursor.next += 1;
        if (typeOf(line) === 'message.completed') return true;
      }
      if (page.length < count) break;
      const start = streamEntryId(seqOfEntryId(page[page.length - 1][0].toString()) + 1);
      count = pageEntries(bytes / Math.max(page.length, 1));
      // Dropped before the next page is read, so at most one is held.
      page = null;
      page = (await this.redis.xrangeBuffer(stream, start, '+', 'COUNT', count)) as StreamEntry[];
    }
    if (!hole) {
      if (cursor.next > from) return false;
      // XADD is the only writer, so an existing log has entries; an empty answer means expired or not yet written.
      const [last] = lastEntries;
      if (last) {
        // The log ends before `from`: complete when its last line closes the reply (the client has it).
        const line = fieldValue(last[1], EVENT_FIELD);
        if (line !== undefined && typeOf(line) === 'message.completed') return true;
        if (!silent) return false;
      }
    }
    const stored = await options.storedLines();
    if (!stored || stored.length === 0) return false;
    for (const event of stored) {
      if (event.seq !== cursor.next) continue;
      yield Buffer.from(encodeEvent(event));
      cursor.next += 1;
    }
    return true;
  }
}

/**
 * Live lines received while the reader was busy, and the wake-up of a reader waiting for them. Holds at most
 * `maxBytes`: past that it keeps nothing and asks the reader to catch up from the log instead.
 */
class LiveInbox {
  private lines: Line[] = [];
  private bytes = 0;
  private catchUp = false;
  private wake: ((woken: boolean) => void) | null = null;

  constructor(
    private readonly signal: AbortSignal,
    private readonly maxBytes: number,
  ) {
    signal.addEventListener('abort', () => this.wake?.(false), { once: true });
  }

  /** A published message: one or more lines, joined by newlines (the writer publishes a batch at once). */
  add(message: Buffer): void {
    if (this.catchUp) return;
    if (this.bytes > 0 && this.bytes + message.length > this.maxBytes) {
      this.requireCatchUp();
      return;
    }
    this.bytes += message.length;
    // Views into the shared message, not copies.
    for (let start = 0; start < message.length;) {
      const newline = message.indexOf(NEWLINE, start);
      const end = newline < 0 ? message.length : newline;
      const bytes = message.subarray(start, end);
      const head = lineHead(bytes);
      if (head) this.lines.push({ ...head, bytes });
      start = end + 1;
    }
    if (this.lines.length > 0) this.wake?.(true);
  }

  /** Live lines may have been missed (a resubscription, or too many to keep): read the log again. */
  requireCatchUp(): void {
    this.catchUp = true;
    this.lines = [];
    this.bytes = 0;
    this.wake?.(true);
  }

  /** The lines received so far, in seq order, or the request to read the log instead. */
  take(): { lines: Line[]; catchUp: boolean } {
    const taken = { lines: this.lines.sort((a, b) => a.seq - b.seq), catchUp: this.catchUp };
    this.lines = [];
    this.bytes = 0;
    this.catchUp = false;
    return taken;
  }

  /** True once lines (or a catch-up) are waiting; false after `timeoutMs` without any, or when aborted. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.lines.length > 0 || this.catchUp) return Promise.resolve(true);
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

const NEWLINE = 0x0a;

/** The writer encodes `{"seq":N,"type":"T",…}`: read those two without parsing a line that may be large. */
const HEAD = /^\{"seq":(\d+),"type":"([a-z.]+)"/;
/** Enough bytes for the head of any line the writer encodes. */
const HEAD_BYTES = 64;

function lineHead(bytes: Buffer): { seq: number; type: string } | null {
  const match = HEAD.exec(bytes.toString('latin1', 0, Math.min(HEAD_BYTES, bytes.length)));
  if (match) return { seq: Number(match[1]), type: match[2] };
  try {
    const { seq, type } = JSON.parse(bytes.toString()) as { seq?: unknown; type?: unknown };
    return typeof seq === 'number' && typeof type === 'string' ? { seq, type } : null;
  } catch {
    return null;
  }
}

type StreamEntry = [id: Buffer, fields: Buffer[]];

/** Entries of the next page, for lines of this average size. */
function pageEntries(averageBytes: number): number {
  const entries = Math.floor(REPLAY_PAGE_BYTES / Math.max(averageBytes, 1));
  return Math.min(REPLAY_PAGE_ENTRIES.max, Math.max(REPLAY_PAGE_ENTRIES.min, entries));
}

/** The replies of a MULTI, or the first error among them. */
function resultsOrThrow(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error('Redis transaction aborted');
  for (const [error] of results) if (error) throw error;
  return results.map(([, value]) => value);
}

function fieldValue(fields: Buffer[], name: string): Buffer | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i].toString() === name) return fields[i + 1];
  return undefined;
}

function typeOf(line: Buffer): string {
  return lineHead(line)?.type ?? '';
}
