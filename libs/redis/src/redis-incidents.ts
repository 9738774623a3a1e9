import { Logger } from '@nestjs/common';
import { Cluster } from 'ioredis';

/**
 * After this long without a new error or slot move, an incident is over and summed up in one line: longer than a
 * reconnect attempt (2 s at most) and than the slot map's refresh interval, so one failover is one incident.
 */
const INCIDENT_QUIET_MS = 5000;

/** A master replaced for some slots: the node that served them, the node that does now, and how many. */
interface SlotMove {
  from: string;
  to: string;
  slots: number;
}

interface Incident {
  startedAt: number;
  /** The last error or slot move: the incident lasted until then. */
  lastAt: number;
  errors: number;
  /** Each kind of error (its message's first line) and how often it came. */
  kinds: Map<string, number>;
  /** The connections that reported errors (commands, bullmq, a queue's worker…). */
  connections: Set<string>;
  moves: Map<string, SlotMove>;
  /** Jobs taken up again after their worker lost them (stalled) or retried after a failed attempt, per queue. */
  resumed: Map<string, number>;
  retried: Map<string, number>;
  timer: NodeJS.Timeout | null;
}

/**
 * What a process's Redis connections went through, said once: while Redis restarts or a Cluster master fails
 * over, every connection reports its errors (each connection, each command) and, left alone, ioredis and BullMQ
 * print each one with its stack. Here they are counted instead, and when things have been quiet for
 * INCIDENT_QUIET_MS one line says what happened: which masters failed over (slots that moved, read from the
 * Cluster's slot map), how long it lasted, which connections saw errors and of what kind, and which jobs were
 * resumed or retried.
 *
 * One per process, like the metrics registry: every Redis connection the process makes reports here, whichever
 * module made it (see `createRedisConnection`).
 */
export class RedisIncidents {
  private incident: Incident | null = null;
  /** The master of each slot as last read, per watched Cluster (copied: ioredis updates its own in place). */
  private readonly masters = new WeakMap<Cluster, string[]>();

  constructor(
    private readonly logger: Pick<Logger, 'warn'> = new Logger('Redis'),
    private readonly quietMs = INCIDENT_QUIET_MS,
  ) {}

  /** An error event of a connection: counted, never printed on its own. */
  error(connection: string, error: unknown): void {
    const incident = this.open();
    incident.errors += 1;
    incident.connections.add(connection);
    const kind = kindOf(error);
    incident.kinds.set(kind, (incident.kinds.get(kind) ?? 0) + 1);
    this.settleLater(incident);
  }

  /** A job taken up again after the worker that held it lost it (BullMQ's stalled check). */
  resumed(queue: string): void {
    const incident = this.open();
    incident.resumed.set(queue, (incident.resumed.get(queue) ?? 0) + 1);
    this.settleLater(incident);
  }

  /** A job whose attempt failed and that will run again; counted only inside an incident (its own line says it). */
  retried(queue: string): void {
    if (!this.incident) return;
    this.incident.retried.set(queue, (this.incident.retried.get(queue) ?? 0) + 1);
    this.settleLater(this.incident);
  }

  /**
   * Follows a Cluster's slot map: each time ioredis reads it again (every `slotsRefreshInterval`, and after a
   * MOVED or a lost node) the slots whose master changed are a failover.
   */
  watchCluster(cluster: Cluster): void {
    cluster.on('refresh', () => this.slotsRead(cluster));
  }

  /** Ends a pending incident now, with its line (at shutdown, so nothing is left unsaid). */
  flush(): void {
    if (this.incident) this.settle(this.incident);
  }

  private slotsRead(cluster: Cluster): void {
    const now = cluster.slots.map((nodes) => nodes?.[0] ?? '');
    const before = this.masters.get(cluster);
    this.masters.set(cluster, now);
    if (!before) return;
    const moved = new Map<string, SlotMove>();
    for (let slot = 0; slot < now.length; slot++) {
      const [from, to] = [before[slot], now[slot]];
      if (!from || !to || from === to) continue;
      const key = `${from}>${to}`;
      const move = moved.get(key) ?? { from, to, slots: 0 };
      move.slots += 1;
      moved.set(key, move);
    }
    if (moved.size === 0) return;
    const incident = this.open();
    for (const [key, move] of moved) {
      const known = incident.moves.get(key);
      incident.moves.set(key, known ? { ...known, slots: Math.max(known.slots, move.slots) } : move);
    }
    this.settleLater(incident);
  }

  private open(): Incident {
    this.incident ??= {
      startedAt: Date.now(),
      lastAt: Date.now(),
      errors: 0,
      kinds: new Map(),
      connections: new Set(),
      moves: new Map(),
      resumed: new Map(),
      retried: new Map(),
      timer: null,
    };
    return this.incident;
  }

  private settleLater(incident: Incident): void {
    incident.lastAt = Date.now();
    if (incident.timer) clearTimeout(incident.timer);
    incident.timer = setTimeout(() => this.settle(incident), this.quietMs);
    incident.timer.unref();
  }

  private settle(incident: Incident): void {
    if (incident.timer) clearTimeout(incident.timer);
    if (this.incident === incident) this.incident = null;
    const failedOver = [...incident.moves.values()];
    this.logger.warn(
      {
        failedOver,
        lastedMs: incident.lastAt - incident.startedAt,
        errors: incident.errors,
        errorKinds: Object.fromEntries(incident.kinds),
        connections: [...incident.connections],
        resumedJobs: Object.fromEntries(incident.resumed),
        retriedJobs: Object.fromEntries(incident.retried),
      },
      failedOver.length > 0 ? 'redis master failed over' : 'redis connection interrupted',
    );
  }
}

/** The error's message, its first line and shortened: what kind of error it was. */
function kindOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].slice(0, 120);
}

/** The process's one instance: every Redis connection reports to it. */
export const redisIncidents = new RedisIncidents();
