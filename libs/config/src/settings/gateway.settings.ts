import { IsString, Matches, MinLength } from 'class-validator';
import { OnOff, Optional, WholeNumber } from '../setting-kinds';

/** Who may call the gateway, and how: keys, the dashboard, CORS, rate limit, playground. */
export class GatewaySettings {
  /** How long an authenticated key stays cached in a process; revocation also invalidates at once over Redis. */
  @WholeNumber({ min: 0, max: 60000 })
  keyCacheTtlMs = 5000;

  /** Basic-auth password of the queue dashboard at /admin/queues; the dashboard is off while unset. */
  @Optional(IsString(), MinLength(8))
  adminPassword?: string;

  @IsString()
  @MinLength(1)
  adminUser = 'admin';

  /**
   * Browser origins allowed to call the API cross-origin (CORS), a comma list such as
   * `https://app.example.com,https://admin.example.com`; unset: no CORS headers at all.
   */
  @Optional(
    Matches(/^https?:\/\/[^,\s/]+(,https?:\/\/[^,\s/]+)*$/, {
      message: 'must be a comma list of origins (scheme://host[:port])',
    }),
  )
  corsOrigins?: string;

  /** Token that lets PUT /skills change a platform skill (CONTRACTS §11); unset means no token is right. */
  @Optional(IsString(), MinLength(16))
  internalToken?: string;

  /** Requests per minute one API key may send, counted in Redis across every gateway replica; 0 turns it off. */
  @WholeNumber({ min: 0 })
  rateLimitPerMinute = 0;

  /**
   * Admission control: a request that would start a reply is refused (503 with `Retry-After`, nothing stored) while
   * this many runs or more wait for a worker slot, all gateways' requests counted; 0 turns it off. What is
   * admitted past it would wait seconds for its first word; what is refused can go elsewhere or come back.
   */
  @WholeNumber({ min: 0 })
  admissionMaxQueuedRuns = 200;

  /**
   * Admission control: the same refusal while this gateway's event loop lags by this much or more (p99 of the last
   * quarter second, in ms): the box is short of CPU, and a reply accepted now would stream late; 0 turns it off.
   */
  @WholeNumber({ min: 0, max: 60000 })
  admissionMaxEventLoopDelayMs = 500;

  /**
   * Admission control: the same refusal while even the fastest reply start of a quarter second (storing it and
   * enqueuing its run) takes this long or longer, in ms: requests queue in front of PostgreSQL or its pool, which
   * neither the run backlog nor the event loop shows; 0 turns it off.
   */
  @WholeNumber({ min: 0, max: 60000 })
  admissionMaxReplyStartMs = 1000;

  /**
   * Admission control: the same refusal while runs wait for a worker and even the fastest run a worker started
   * lately had waited this long or longer since its reply was stored, in ms (as the workers report it): a standing
   * queue in front of the workers, measured in the time it costs a reply's first word; 0 turns it off.
   */
  @WholeNumber({ min: 0, max: 60000 })
  admissionMaxRunStartWaitMs = 500;

  /** Serves the browser playground at /playground. */
  @OnOff()
  playgroundEnabled = true;
}
