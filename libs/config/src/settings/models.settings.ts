import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { emptyToUndefined, toInt } from '../setting-problems';

/** Vendor models: endpoints, keys, retries and timeouts. */
export class ModelSettings {
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  openaiBaseUrl?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  openaiApiKey?: string;

  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  anthropicBaseUrl = 'https://api.anthropic.com/v1';

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  anthropicApiKey?: string;

  /** Retries of a vendor model call after a 429, a 5xx, a network error or a stream broken before any output. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10)
  modelMaxRetries = 3;

  /** First wait between vendor model call attempts; it doubles on each attempt. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  modelRetryBaseMs = 1000;

  /** Longest wait between attempts: a vendor asking (retry-after) to wait longer ends the call with an error. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  modelRetryMaxDelayMs = 30000;

  /** A vendor that sends nothing (no response, no stream bytes) for this long fails the call. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  modelIdleTimeoutMs = 60000;
}
