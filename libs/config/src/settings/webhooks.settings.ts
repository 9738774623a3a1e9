import { OnOff, WholeNumber } from '../setting-kinds';

/** Webhook deliveries and routine schedules: the outbound, periodic work. */
export class WebhookSettings {
  /** First webhook retry this long after a failure; each next one twice as late, capped at 1 h (CONTRACTS §14). */
  @WholeNumber({ min: 1 })
  webhookRetryBaseMs = 5000;

  /** How often a worker looks in PostgreSQL for webhook deliveries that are due (new events, retries). */
  @WholeNumber({ min: 50 })
  webhookSweepIntervalMs = 1000;

  /**
   * How long a queued webhook try owns its delivery row; past it the sweep queues the try again. It bounds how
   * late a try whose job was lost (Redis flushed, a worker killed) goes out; keep it above 10 s, the send timeout.
   */
  @WholeNumber({ min: 100 })
  webhookLeaseMs = 60000;

  /** Allows webhook URLs on private, loopback and link-local addresses: for tests and closed networks only. */
  @OnOff()
  webhookAllowPrivate = false;

  /**
   * A test hook: routine schedules may have a sixth, leading seconds field, so a test sees firings in seconds.
   * The API documents 5-field schedules; leave this off in a deployment.
   */
  @OnOff()
  routineSecondsSchedules = false;
}
