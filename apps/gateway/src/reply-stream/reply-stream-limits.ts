import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { JsonlBodyLimits } from './jsonl-body';
import { StalledStreams } from './stalled-streams';

/**
 * The bounds every route that streams a reply (JSONL or server-sent events) puts on a client that stops reading:
 * STREAM_STALL_TIMEOUT_MS, and the gateway-wide cap on what stalled streams hold.
 */
@Injectable()
export class ReplyStreamLimits implements JsonlBodyLimits {
  constructor(
    private readonly settings: Settings,
    readonly stalled: StalledStreams,
  ) {}

  get stallTimeoutMs(): number {
    return this.settings.streamStallTimeoutMs;
  }
}
