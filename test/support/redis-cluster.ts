import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, isFreePort } from './processes';

const run = promisify(execFile);

/**
 * A Redis Cluster of three masters (or `masters`) of the test's own (with `replicas: 1`, a replica for each), from
 * `redis-server --cluster-enabled yes` on spare ports joined by `redis-cli --cluster create`. Nothing persisted;
 * `stop()` removes it all. The node timeout is Redis's own failure detection: a replica is promoted about
 * that long after its master dies.
 */
export class RedisCluster {
  private constructor(
    readonly ports: number[],
    private readonly servers: ChildProcess[],
    private readonly dir: string,
    private readonly nodeTimeoutMs: number,
  ) {}

  /** The REDIS_URL of the cluster, in the form the settings accept. */
  get url(): string {
    return `redis-cluster://${this.ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  /** `masters`: 3 or more take `redis-cli --cluster create`; 1 or 2 (no replicas) get their slots by hand. */
  static async start({ masters = 3, replicas = 0, nodeTimeoutMs = 5000 } = {}): Promise<RedisCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'parley-redis-cluster-'));
    const ports = await freeNodePorts(masters * (1 + replicas));
    const servers = ports.map((port) => spawnServer(port, dir, nodeTimeoutMs));
    const cluster = new RedisCluster(ports, servers, dir, nodeTimeoutMs);
    try {
      for (const port of ports) await waitFor(() => cli(port, 'ping').then((out) => out.trim() === 'PONG'));
      if (masters >= 3)
        await run('redis-cli', [
          '--cluster',
          'create',
          ...ports.map((port) => `127.0.0.1:${port}`),
          '--cluster-replicas',
          String(replicas),
          '--cluster-yes',
        ]);
      else await assignSlotsByHand(ports);
      for (const port of ports)
        await waitFor(() => cli(port, 'cluster', 'info').then((out) => out.includes('cluster_state:ok')));
      // A replica that never finished its first sync refuses to take over its master (its data counts as too
      // old: cluster-replica-validity-factor), so a master killed before then would never fail over.
      for (const port of ports)
        await waitFor(() =>
          cli(port, 'info', 'replication').then(
            (out) => out.includes('role:master') || out.includes('master_link_status:up'),
          ),
        );
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The process ids of the servers, in the order of `ports`. */
  get pids(): number[] {
    return this.servers.map((server) => server.pid!);
  }

  /** How many keys each master holds: a cluster in use spreads them over all three. */
  async keysPerNode(): Promise<number[]> {
    const masters = await this.masterPorts();
    return Promise.all(masters.map(async (port) => Number((await cli(port, 'dbsize')).trim())));
  }

  /** The port of the master now serving `key`'s slot, as a live node sees the cluster. */
  async masterOf(key: string): Promise<number> {
    return this.masterOfSlot(await this.slotOf(key));
  }

  private async masterOfSlot(slot: number): Promise<number> {
    const live = this.livePorts();
    for (const line of (await cli(live[0], 'cluster', 'nodes')).trim().split('\n')) {
      const [, address, flags, , , , , linkState, ...ranges] = line.split(' ');
      if (!flags.includes('master') || flags.includes('fail') || linkState !== 'connected') continue;
      const serves = ranges.some((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return slot >= from && slot <= to;
      });
      if (serves) return Number(address.split('@')[0].split(':')[1]);
    }
    throw new Error(`no live master serves slot ${slot}`);
  }

  /** For each live master, how many connections subscribe to `channel` as a shard channel (PUBSUB SHARDNUMSUB). */
  async shardSubscribersPerMaster(channel: string): Promise<{ port: number; subscribers: number }[]> {
    return Promise.all(
      (await this.masterPorts()).map(async (port) => ({
        port,
        subscribers: Number((await cli(port, 'pubsub', 'shardnumsub', channel)).trim().split('\n')[1]),
      })),
    );
  }

  /**
   * Reshards one slot to the master on `toPort`, live, the way `redis-cli --cluster reshard` moves each slot: the
   * target imports it, the source migrates it, its keys are MIGRATEd in batches, then every master is told the
   * new owner. Clients see ASK redirections meanwhile and MOVED after.
   */
  async moveSlot(slot: number, toPort: number): Promise<void> {
    const fromPort = await this.masterOfSlot(slot);
    if (fromPort === toPort) return;
    const [fromId, toId] = await Promise.all(
      [fromPort, toPort].map(async (port) => (await cli(port, 'cluster', 'myid')).trim()),
    );
    await cli(toPort, 'cluster', 'setslot', String(slot), 'importing', fromId);
    await cli(fromPort, 'cluster', 'setslot', String(slot), 'migrating', toId);
    for (;;) {
      const keys = (await cli(fromPort, 'cluster', 'getkeysinslot', String(slot), '100'))
        .trim()
        .split('\n')
        .filter(Boolean);
      if (keys.length === 0) break;
      await cli(fromPort, 'migrate', '127.0.0.1', String(toPort), '', '0', '5000', 'keys', ...keys);
    }
    for (const port of [
      toPort,
      fromPort,
      ...(await this.masterPorts()).filter((p) => p !== toPort && p !== fromPort),
    ])
      await cli(port, 'cluster', 'setslot', String(slot), 'node', toId);
    await waitFor(async () => (await this.masterOfSlot(slot)) === toPort);
  }

  /**
   * `redis-cli --cluster reshard`, as an operator runs it: moves the first `slots` slots the master on `fromPort`
   * serves (in slot order) to the master on `toPort`, live, one slot after the other.
   */
  async reshard(fromPort: number, toPort: number, slots: number): Promise<void> {
    const [fromId, toId] = await Promise.all(
      [fromPort, toPort].map(async (port) => (await cli(port, 'cluster', 'myid')).trim()),
    );
    await run(
      'redis-cli',
      [
        '--cluster',
        'reshard',
        `127.0.0.1:${fromPort}`,
        '--cluster-from',
        fromId,
        '--cluster-to',
        toId,
        '--cluster-slots',
        String(slots),
        '--cluster-yes',
      ],
      // It prints a line per slot moved.
      { maxBuffer: 64 * 1024 * 1024 },
    );
  }

  /** Every slot the master on `port` serves, in order. */
  async slotsOf(port: number): Promise<number[]> {
    const slots: number[] = [];
    for (const line of (await cli(this.livePorts()[0], 'cluster', 'nodes')).trim().split('\n')) {
      const [, address, flags, , , , , , ...ranges] = line.split(' ');
      if (!flags.includes('master') || Number(address.split('@')[0].split(':')[1]) !== port) continue;
      for (const range of ranges) {
        if (range.startsWith('[')) continue; // a slot being imported or migrated
        const [from, to = from] = range.split('-').map(Number);
        for (let slot = from; slot <= to; slot += 1) slots.push(slot);
      }
    }
    return slots.sort((a, b) => a - b);
  }

  /** The slot a key or channel hashes to. */
  async slotOf(key: string): Promise<number> {
    return Number((await cli(this.livePorts()[0], 'cluster', 'keyslot', key)).trim());
  }

  /** The ports of the masters serving slots now. */
  async masters(): Promise<number[]> {
    return this.masterPorts();
  }

  /** SIGKILLs one server, as a crashed host would lose it: no failover is started for it. */
  kill(port: number): void {
    this.servers[this.ports.indexOf(port)].kill('SIGKILL');
  }

  /**
   * Starts a killed server again on its port and config file: it rejoins the cluster as a replica of the master
   * promoted in its place. Resolves once it has finished its first sync (until then it could not take over).
   */
  async restart(port: number): Promise<void> {
    this.servers[this.ports.indexOf(port)] = spawnServer(port, this.dir, this.nodeTimeoutMs);
    await waitFor(() =>
      cli(port, 'info', 'replication').then(
        (out) => out.includes('role:slave') && out.includes('master_link_status:up'),
      ),
    );
  }

  /**
   * Starts a killed master of a cluster without replicas again: it comes back as the master of its own slots, from
   * its config file. Resolves once every live node says the cluster is whole.
   */
  async restartMaster(port: number): Promise<void> {
    this.servers[this.ports.indexOf(port)] = spawnServer(port, this.dir, this.nodeTimeoutMs);
    await this.healed();
  }

  /** Waits until every live node says the cluster is whole again (a replica promoted in the dead master's place). */
  async healed(timeoutMs = 30000): Promise<void> {
    for (const port of this.livePorts())
      await waitFor(
        () => cli(port, 'cluster', 'info').then((out) => out.includes('cluster_state:ok')),
        timeoutMs,
      );
  }

  /** Waits until every live node says the cluster is failed (a master died and no replica took its place). */
  async failed(timeoutMs = 30000): Promise<void> {
    // The live ports are read on every try: a server just killed counts as live until its exit is seen.
    await waitFor(async () => {
      const states = await Promise.all(this.livePorts().map((port) => cli(port, 'cluster', 'info')));
      return states.every((out) => out.includes('cluster_state:fail'));
    }, timeoutMs);
  }

  private async masterPorts(): Promise<number[]> {
    const roles = await Promise.all(
      this.livePorts().map(async (port) => ({ port, role: (await cli(port, 'role')).split('\n')[0].trim() })),
    );
    return roles.filter(({ role }) => role === 'master').map(({ port }) => port);
  }

  private livePorts(): number[] {
    return this.ports.filter(
      (_, i) => this.servers[i].exitCode === null && this.servers[i].signalCode === null,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.exitCode !== null || server.signalCode !== null) return resolve();
            server.once('exit', () => resolve());
            server.kill('SIGTERM');
          }),
      ),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}

function spawnServer(port: number, dir: string, nodeTimeoutMs: number): ChildProcess {
  return spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // A node learns its own address from the nodes it meets: a one-master cluster would announce none.
      '--cluster-announce-ip',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: 'ignore' },
  );
}

/**
 * A cluster of one or two masters, which `redis-cli --cluster create` refuses: each node gets an even share of the
 * slots, then the nodes meet.
 */
async function assignSlotsByHand(ports: number[]): Promise<void> {
  const share = Math.ceil(16384 / ports.length);
  for (const [index, port] of ports.entries()) {
    const from = index * share;
    await cli(port, 'cluster', 'addslotsrange', String(from), String(Math.min(16383, from + share - 1)));
  }
  for (const port of ports.slice(1)) await cli(port, 'cluster', 'meet', '127.0.0.1', String(ports[0]));
}

/** A cluster node's bus listens this far above its port, so a node's port must be at most 65535 minus it. */
const CLUSTER_BUS_OFFSET = 10000;

/**
 * `count` distinct ports for cluster nodes, each with its bus port free too, both below the ephemeral range (see
 * freePort). redis-server refuses a port above 55535 in cluster mode, and a start on a taken bus port waits out
 * its timeout: a chaos run failed so.
 */
async function freeNodePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  const taken = (port: number) => ports.some((other) => [other, other + CLUSTER_BUS_OFFSET].includes(port));
  while (ports.length < count) {
    const port = await freePort(HIGHEST_NODE_PORT);
    const bus = port + CLUSTER_BUS_OFFSET;
    if (!taken(port) && !taken(bus) && (await isFreePort(bus))) ports.push(port);
  }
  return ports;
}

/** A node port whose bus port stays below 32768, the start of the usual ephemeral range. */
const HIGHEST_NODE_PORT = 32767 - CLUSTER_BUS_OFFSET;

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

/** A cluster of six nodes forms slowly while the fast lane runs its suites side by side on two cores. */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 45000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('redis cluster not ready in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
