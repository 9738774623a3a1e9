import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Min } from 'class-validator';
import { toBool, toInt } from '../setting-problems';

/** Webhook deliveries and routine schedules: the outbound, periodic work. */
export class WebhookSettings {
  /** First webhook retry this long after a failure; each next one twice as late, capped at 1 h (CONTRACTS §14). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  webhookRetryBaseMs = 5000;

  /** How often a worker looks in PostgreSQL for webhook deliveries that are due (new events, retries). */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  webhookSweepIntervalMs = 1000;

  /**
   * How long a queued webhook try owns its delivery row; past it the sweep queues the try again. It bounds how
   * late a try whose job was lost (Redis flushed, a worker killed) goes out; keep it above 10 s, the send timeout.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  webhookLeaseMs = 60000;

  /** Allows webhook URLs on private, loopback and link-local addresses: for tests and closed networks only. */
  @Transform(toBool)
  @IsBoolean()
  webhookAllowPrivate = false;

  /**
   * A test hook: routine schedules may have a sixth, leading seconds field, so a test sees firings in seconds.
   * The API documents 5-field schedules; leave this off in a deployment.
   */
  @Transform(toBool)
  @IsBoolean()
  routineSecondsSchedules = false;
}
