/**
 * CPU time of processes, from /proc/<pid>/stat: utime + stime (every thread of the process), in clock ticks of
 * `getconf CLK_TCK`. Read before and after a round, the difference is the CPU the round cost that process,
 * whatever else the (shared) machine was doing at the time.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const MS_PER_TICK = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

interface ProcStat {
  ppid: number;
  /** utime + stime of the process itself. */
  ownTicks: number;
  /** cutime + cstime: children that have exited and been waited for. */
  waitedChildrenTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited between listing and reading
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14-17.
  return {
    ppid: Number(fields[1]),
    ownTicks: Number(fields[11]) + Number(fields[12]),
    waitedChildrenTicks: Number(fields[13]) + Number(fields[14]),
  };
}

/** Every live process's stat, read once: a tree's sum walks it instead of listing /proc per node. */
function allStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  return stats;
}

const childrenOf = (stats: Map<number, ProcStat>, pid: number) =>
  [...stats].filter(([, stat]) => stat.ppid === pid).map(([child]) => child);

/**
 * CPU milliseconds of a process and all its descendants, live or exited: a PostgreSQL cluster's postmaster forks a
 * backend per connection and autovacuum workers that come and go; an exited one's time moves into its parent's
 * cutime/cstime, so a difference of two readings still counts it exactly once.
 */
export function treeCpuMs(pid: number, stats = allStats()): number {
  const stat = stats.get(pid);
  if (!stat) return 0;
  const descendants = childrenOf(stats, pid).reduce((sum, child) => sum + treeCpuMs(child, stats), 0);
  return (stat.ownTicks + stat.waitedChildrenTicks) * MS_PER_TICK + descendants;
}

/**
 * The CPU milliseconds of the live children of `pid` whose command line contains `marker`: the backends of one
 * database (`postgres: user database host(port) state`). A backend that exits between two readings is missed, so
 * this is a split of treeCpuMs for pooled connections, not a total.
 */
export function childrenCpuMs(pid: number, marker: string): number {
  const stats = allStats();
  return childrenOf(stats, pid)
    .filter((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .reduce((sum, child) => sum + (stats.get(child)?.ownTicks ?? 0) * MS_PER_TICK, 0);
}

/** The machine's CPU time so far, from the `cpu` line of /proc/stat: busy and total, in ticks of every core. */
export function machineCpuTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const ticks = fields.slice(0, 8).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  return { busy: total - ticks[3] - ticks[4], total };
}

/** The share of the machine's cores busy between two readings of machineCpuTicks, 0-1. */
export const busyShare = (
  before: ReturnType<typeof machineCpuTicks>,
  after: ReturnType<typeof machineCpuTicks>,
) => (after.busy - before.busy) / Math.max(1, after.total - before.total);

/** What a benchmark charges CPU to: the service's two apps, its two stores, and the load generator itself. */
export const CPU_COMPONENTS = ['gateway', 'worker', 'postgres', 'redis', 'client'] as const;
export type ComponentsCpu = Record<(typeof CPU_COMPONENTS)[number], number>;
export type ComponentPids = Record<Exclude<keyof ComponentsCpu, 'client'>, number>;

/** CPU ms so far of each component's process tree, and of this process (the load generator). */
export function componentsCpuMs(pids: ComponentPids): ComponentsCpu {
  const usage = process.cpuUsage();
  return {
    gateway: treeCpuMs(pids.gateway),
    worker: treeCpuMs(pids.worker),
    postgres: treeCpuMs(pids.postgres),
    redis: treeCpuMs(pids.redis),
    client: (usage.user + usage.system) / 1000,
  };
}
