import { Cluster, ClusterNode, ClusterOptions } from 'ioredis';

/** ioredis's own message for a closed connection, which BullMQ reads as a connection error (not a bug to report). */
const CONNECTION_CLOSED = 'Connection is closed.';

/**
 * An ioredis Cluster whose `connect()` always settles.
 *
 * ioredis 5.11 (and 6.0) leaves the promise of `connect()` pending for good when the cluster's ready check
 * fails (`cluster_state:fail`, as it is while a dead master's replica has not yet been promoted): the cluster
 * reconnects on its own and a later attempt reaches `ready`, but the first caller is never told. BullMQ's worker
 * awaits that promise when it reconnects its blocking connection after a master's failover, so the consumer
 * stopped taking jobs for ever (bench/results/chaos.md, "A consumer that stops after the queue master's
 * failover"). Here `connect()` also resolves on the `ready` that the reconnection reaches, and rejects on `end`.
 *
 * `duplicate()` (how BullMQ makes a worker's blocking connection) makes another of these.
 */
export class FailoverSafeCluster extends Cluster {
  constructor(
    private readonly seedNodes: ClusterNode[],
    options: ClusterOptions,
  ) {
    super(seedNodes, options);
  }

  override connect(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stopListening = () => {
        this.off('ready', onReady);
        this.off('end', onEnd);
      };
      const onReady = () => {
        stopListening();
        resolve();
      };
      const onEnd = () => {
        stopListening();
        reject(new Error(CONNECTION_CLOSED));
      };
      this.once('ready', onReady);
      this.once('end', onEnd);
      super.connect().then(onReady, (error: unknown) => {
        stopListening();
        reject(error);
      });
    });
  }

  override duplicate(
    overrideStartupNodes: ClusterNode[] = [],
    overrideOptions: ClusterOptions = {},
  ): Cluster {
    const seeds = overrideStartupNodes.length > 0 ? overrideStartupNodes : this.seedNodes.slice(0);
    return new FailoverSafeCluster(seeds, { ...this.options, ...overrideOptions });
  }
}
