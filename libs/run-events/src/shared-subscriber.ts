import { Redis } from 'ioredis';

/**
 * Receives each message published on a channel (run events: one or more JSON lines, newline-joined), as the
 * bytes Redis sent: every listener of the channel gets the same Buffer, so a reply followed by many streams
 * is held once, not once per stream.
 */
export type MessageListener = (message: Buffer) => void;

/**
 * Called once a channel is subscribed again after the connection was lost: whatever was published in between
 * never reached the listener and must be read from the log.
 */
export type ResubscribedListener = () => void;

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
 */
export class SharedSubscriber {
  private readonly channels = new Map<string, ChannelState>();
  private disconnected = false;

  constructor(private readonly connection: Redis) {
    connection.on('messageBuffer', (channel: Buffer, message: Buffer) => {
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

  /** Channels this process is subscribed to or about to be (tests, metrics). */
  get channelCount(): number {
    return this.channels.size;
  }

  listenerCount(channel: string): number {
    return this.channels.get(channel)?.members.size ?? 0;
  }

  async close(): Promise<void> {
    this.channels.clear();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }

  /** A new connection has no subscriptions: subscribe every channel in use again, then tell its members. */
  private resubscribeAll(): void {
    for (const [channel, state] of this.channels) {
      state.subscribed = false;
      this.reconcile(channel, state).then(
        () => {
          for (const member of state.members) member.onResubscribed?.();
        },
        // The connection dropped again: the next 'ready' retries.
        () => undefined,
      );
    }
  }

  /** Brings the subscription in line with the listeners, after whatever change to the channel came before. */
  private reconcile(channel: string, state: ChannelState): Promise<void> {
    state.settled = state.settled
      .catch(() => undefined)
      .then(async () => {
        const wanted = state.members.size > 0;
        if (wanted && !state.subscribed) {
          await subscribeOnceReady(this.connection, channel);
          state.subscribed = true;
        } else if (!wanted && state.subscribed) {
          await this.connection.unsubscribe(channel);
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
}

/**
 * How long a SUBSCRIBE may wait for a Redis Cluster connection to have a subscriber node: a cold gateway's first
 * streams, or any stream opened while the subscriber's node fails over. Well under a client's patience.
 */
const SUBSCRIBER_WAIT_MS = 5000;
const SUBSCRIBER_RETRY_MS = 100;

/**
 * SUBSCRIBE, retried while the connection has no working subscriber yet. An ioredis Cluster picks its subscriber
 * node only after it has read the slot map, and again when that node is lost; meanwhile it rejects SUBSCRIBE at
 * once ("No subscriber for the cluster"). Its new subscriber connection also runs a ready check (INFO) that a
 * SUBSCRIBE sent first makes fail ("Connection in subscriber mode"), and that connection is then replaced. Both
 * failed stream opens on a cold gateway with a 500.
 */
async function subscribeOnceReady(connection: Redis, channel: string): Promise<void> {
  const deadline = Date.now() + SUBSCRIBER_WAIT_MS;
  // Before 'ready' a Cluster has not chosen its subscriber node: a SUBSCRIBE queued then may go astray.
  while (connection.status !== 'ready' && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, SUBSCRIBER_RETRY_MS));
  for (;;) {
    try {
      await connection.subscribe(channel);
      return;
    } catch (error) {
      if (!isSubscriberMissing(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, SUBSCRIBER_RETRY_MS));
    }
  }
}

function isSubscriberMissing(error: unknown): boolean {
  return (
    error instanceof Error &&
    /No subscriber for the cluster|Connection is closed|Connection in subscriber mode|Ready check failed/.test(
      error.message,
    )
  );
}
