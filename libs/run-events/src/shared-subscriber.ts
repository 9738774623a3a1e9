import { Cluster, Redis } from 'ioredis';

/**
 * Receives each message published on a channel (run events: one or more JSON lines, newline-joined), as the
 * bytes Redis sent: every listener of the channel gets the same Buffer, so a reply followed by many streams
 * is held once, not once per stream.
 */
type MessageListener = (message: Buffer) => void;

/**
 * Called once a channel is subscribed again after the connection was lost: whatever was published in between
 * never reached the listener and must be read from the log.
 */
type ResubscribedListener = () => void;

interface Membership {
  onMessage: MessageListener;
  onResubscribed?: ResubscribedListener;
}

interface ChannelState {
  members: Set<Membership>;
  subscribed: boolean;
  /** The last SUBSCRIBE/UNSUBSCRIBE sent for the channel: changes to one channel are applied in order. */
  settled: Promise<void>;
}

/**
 * One Redis connection in subscriber mode for the whole process, shared by every open stream: a channel is
 * subscribed when its first listener joins and unsubscribed when its last one leaves, so a thousand open
 * streams cost one connection, not a thousand, and a closed stream leaves no subscription behind.
 *
 * When the connection drops and comes back, every channel is subscribed again here (not by ioredis's
 * autoResubscribe, which gives no sign of when it is done) and, once Redis has confirmed it, each member is
 * told so it catches up from the log at once instead of at its next heartbeat.
 *
 * On a Redis Cluster opened with `shardedSubscribers` the channels are shard channels (SSUBSCRIBE, matching the
 * writer's SPUBLISH): ioredis keeps one subscriber connection per master that owns a slot with a channel in use,
 * opened when the first such channel is subscribed. When the slot map changes (a failover, a reshard) it moves
 * the subscriptions to the new owners and says `subscribersReady`; every channel is then subscribed again here
 * and its members catch up from the log, since whatever was published on the new owner before that was missed.
 */
export class SharedSubscriber {
  private readonly channels = new Map<string, ChannelState>();
  private disconnected = false;
  private closing = false;
  /** On a Redis Cluster, the node connection our channels were last confirmed on (see `watchSubscriberNode`). */
  private subscriberNode: Redis | null = null;
  /** Shard channels (a Redis Cluster with sharded subscribers), or classic ones. */
  readonly sharded: boolean;

  constructor(private readonly connection: Redis) {
    this.sharded =
      connection.isCluster && (connection as unknown as Cluster).options.shardedSubscribers === true;
    if (this.sharded) connection.on('subscribersReady', () => this.resubscribeAll());
    connection.on(this.sharded ? 'smessageBuffer' : 'messageBuffer', (channel: Buffer, message: Buffer) => {
      const state = this.channels.get(channel.toString());
      if (!state) return;
      for (const member of state.members) {
        try {
          member.onMessage(message);
        } catch {
          // One listener's failure must not starve the others of the message.
        }
      }
    });
    connection.on('close', () => {
      this.disconnected = true;
    });
    connection.on('ready', () => {
      if (!this.disconnected) return;
      this.disconnected = false;
      this.resubscribeAll();
    });
  }

  /**
   * Adds a listener to a channel. Resolves once Redis has confirmed the subscription (so anything published
   * from then on reaches the listener), with the function that removes it again.
   */
  async join(
    channel: string,
    onMessage: MessageListener,
    onResubscribed?: ResubscribedListener,
  ): Promise<() => Promise<void>> {
    let state = this.channels.get(channel);
    if (!state) {
      state = { members: new Set(), subscribed: false, settled: Promise.resolve() };
      this.channels.set(channel, state);
    }
    const joined = state;
    const member: Membership = { onMessage, onResubscribed };
    joined.members.add(member);
    try {
      await this.reconcile(channel, joined);
    } catch (error) {
      joined.members.delete(member);
      void this.reconcile(channel, joined).catch(() => undefined);
      throw error;
    }
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      joined.members.delete(member);
      await this.reconcile(channel, joined);
    };
  }

  /**
   * Whether a SUBSCRIBE sent now goes out on a ready connection. A Redis Cluster's subscriber node connection is
   * lazy (opened by the first SUBSCRIBE, and again after its node is lost): asking wakes it, so a gateway's
   * readiness turns green only once that connection has passed its ready check.
   */
  isReady(): boolean {
    if (this.connection.status !== 'ready') return false;
    // Shard subscribers are opened by the SSUBSCRIBE that needs them, with no ready check to race.
    if (this.sharded) return true;
    const node = subscriberNodeOf(this.connection);
    if (!node) return false;
    if (node.status === 'wait') node.connect().catch(() => undefined);
    return node.status === 'ready';
  }

  /** Resolves true once `isReady()`, false if that takes longer than `timeoutMs`. */
  async whenReady(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isReady()) {
      if (this.closing || Date.now() >= deadline) return false;
      await sleep(SUBSCRIBER_RETRY_MS);
    }
    return true;
  }

  /** Channels this process is subscribed to or about to be (tests, metrics). */
  get channelCount(): number {
    return this.channels.size;
  }

  listenerCount(channel: string): number {
    return this.channels.get(channel)?.members.size ?? 0;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.channels.clear();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }

  /**
   * A new connection has no subscriptions: subscribe every channel in use again, then tell its members. Retried
   * until it holds: on a Cluster the process's connection stays ready while the subscriber node fails over, so
   * no 'ready' would come to retry it.
   */
  private resubscribeAll(): void {
    for (const [channel, state] of this.channels) this.resubscribe(channel, state);
  }

  private resubscribe(channel: string, state: ChannelState): void {
    if (this.closing || this.channels.get(channel) !== state) return;
    state.subscribed = false;
    this.reconcile(channel, state).then(
      () => {
        for (const member of state.members) member.onResubscribed?.();
      },
      () => setTimeout(() => this.resubscribe(channel, state), RESUBSCRIBE_RETRY_MS).unref(),
    );
  }

  /**
   * On a Redis Cluster, SUBSCRIBE goes to one node's connection that ioredis picks, and replaces when it closes
   * (its node lost, or its ready check failed on a cold start): ioredis subscribes the channels again on the new
   * one but says nothing, so what was published in between would reach a stream only at its next heartbeat.
   * Watching the node our channels were confirmed on turns its loss into the same resubscribe-and-catch-up as a
   * lost connection.
   */
  private watchSubscriberNode(): void {
    if (!this.connection.isCluster || this.sharded) return;
    const node = subscriberNodeOf(this.connection);
    if (!node || node === this.subscriberNode) return;
    this.subscriberNode = node;
    node.once('close', () => {
      if (this.subscriberNode !== node || this.closing) return;
      this.subscriberNode = null;
      this.resubscribeAll();
    });
  }

  /** Brings the subscription in line with the listeners, after whatever change to the channel came before. */
  private reconcile(channel: string, state: ChannelState): Promise<void> {
    state.settled = state.settled
      .catch(() => undefined)
      .then(async () => {
        const wanted = state.members.size > 0;
        if (wanted && !state.subscribed) {
          await this.subscribeOnceReady(channel);
          state.subscribed = true;
          this.watchSubscriberNode();
        } else if (!wanted && state.subscribed) {
          await (this.sharded ? this.connection.sunsubscribe(channel) : this.connection.unsubscribe(channel));
          state.subscribed = false;
        }
        // Someone may have joined while UNSUBSCRIBE was in flight: their own reconcile, queued behind this
        // one, subscribes again, so the state must stay.
        if (state.members.size === 0 && !state.subscribed && this.channels.get(channel) === state) {
          this.channels.delete(channel);
        }
      });
    return state.settled;
  }

  /**
   * SUBSCRIBE once the connection is ready for it, retried while it has no working subscriber yet. An ioredis
   * Cluster picks its subscriber node only after it has read the slot map, and again when that node is lost;
   * meanwhile it rejects SUBSCRIBE at once ("No subscriber for the cluster"). Its new subscriber connection then
   * runs a ready check (INFO), and a SUBSCRIBE written before that check answers puts the connection in
   * subscriber mode, so the check fails ("ERR Can't execute 'info'"), the connection is dropped and every
   * command queued on it is rejected with that error (an open ioredis issue). Each of these made a stream open on a
   * cold gateway answer 500. Waiting for the node to be ready (`isReady`) avoids the race; the retry covers a
   * node replaced between the look and the send.
   */
  private async subscribeOnceReady(channel: string): Promise<void> {
    const deadline = Date.now() + SUBSCRIBER_WAIT_MS;
    for (;;) {
      await this.whenReady(deadline - Date.now());
      try {
        await (this.sharded ? this.connection.ssubscribe(channel) : this.connection.subscribe(channel));
        return;
      } catch (error) {
        if (!isSubscriberMissing(error) || Date.now() > deadline) throw error;
        await sleep(SUBSCRIBER_RETRY_MS);
      }
    }
  }
}

/**
 * How long a SUBSCRIBE may wait for a working subscriber connection: a cold gateway's first streams, or any
 * stream opened while a Redis Cluster's subscriber node fails over. Well under a client's patience.
 */
const SUBSCRIBER_WAIT_MS = 5000;
const SUBSCRIBER_RETRY_MS = 50;
/** Between attempts to subscribe the open streams' channels again after their connection (or node) was lost. */
const RESUBSCRIBE_RETRY_MS = 1000;

/**
 * The connection SUBSCRIBE is written to: the connection itself, or the node connection a Cluster has chosen for
 * its subscriptions (ioredis keeps it in a `ClusterSubscriber`, which has no public accessor), null while it has
 * none.
 */
function subscriberNodeOf(connection: Redis): Redis | null {
  if (!connection.isCluster) return connection;
  const internals = connection as unknown as { subscriber?: { getInstance?: () => Redis | null } };
  return internals.subscriber?.getInstance?.() ?? null;
}

function isSubscriberMissing(error: unknown): boolean {
  return (
    error instanceof Error &&
    /No subscriber for the cluster|No sharded subscriber|Connection is closed|Connection in subscriber mode|Ready check failed|Can't execute 'info'/.test(
      error.message,
    )
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(ms, 0)));
}
