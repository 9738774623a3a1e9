import { Redis } from 'ioredis';

/** Receives each message published on a channel (run events: one or more JSON lines, newline-joined). */
export type MessageListener = (message: string) => void;

interface ChannelState {
  listeners: Set<MessageListener>;
  subscribed: boolean;
  /** The last SUBSCRIBE/UNSUBSCRIBE sent for the channel: changes to one channel are applied in order. */
  settled: Promise<void>;
}

/**
 * One Redis connection in subscriber mode for the whole process, shared by every open stream: a channel is
 * subscribed when its first listener joins and unsubscribed when its last one leaves, so a thousand open
 * streams cost one connection, not a thousand, and a closed stream leaves no subscription behind.
 */
export class SharedSubscriber {
  private readonly channels = new Map<string, ChannelState>();

  constructor(private readonly connection: Redis) {
    connection.on('message', (channel: string, message: string) => {
      const state = this.channels.get(channel);
      if (!state) return;
      for (const listener of state.listeners) {
        try {
          listener(message);
        } catch {
          // One listener's failure must not starve the others of the message.
        }
      }
    });
  }

  /**
   * Adds a listener to a channel. Resolves once Redis has confirmed the subscription (so anything published
   * from then on reaches the listener), with the function that removes it again.
   */
  async join(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    let state = this.channels.get(channel);
    if (!state) {
      state = { listeners: new Set(), subscribed: false, settled: Promise.resolve() };
      this.channels.set(channel, state);
    }
    const joined = state;
    joined.listeners.add(listener);
    try {
      await this.reconcile(channel, joined);
    } catch (error) {
      joined.listeners.delete(listener);
      void this.reconcile(channel, joined).catch(() => undefined);
      throw error;
    }
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      joined.listeners.delete(listener);
      await this.reconcile(channel, joined);
    };
  }

  /** Channels this process is subscribed to or about to be (tests, metrics). */
  get channelCount(): number {
    return this.channels.size;
  }

  listenerCount(channel: string): number {
    return this.channels.get(channel)?.listeners.size ?? 0;
  }

  async close(): Promise<void> {
    this.channels.clear();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }

  /** Brings the subscription in line with the listeners, after whatever change to the channel came before. */
  private reconcile(channel: string, state: ChannelState): Promise<void> {
    state.settled = state.settled
      .catch(() => undefined)
      .then(async () => {
        const wanted = state.listeners.size > 0;
        if (wanted && !state.subscribed) {
          await this.connection.subscribe(channel);
          state.subscribed = true;
        } else if (!wanted && state.subscribed) {
          await this.connection.unsubscribe(channel);
          state.subscribed = false;
        }
        // Someone may have joined while UNSUBSCRIBE was in flight: their own reconcile, queued behind this
        // one, subscribes again, so the state must stay.
        if (state.listeners.size === 0 && !state.subscribed && this.channels.get(channel) === state) {
          this.channels.delete(channel);
        }
      });
    return state.settled;
  }
}
