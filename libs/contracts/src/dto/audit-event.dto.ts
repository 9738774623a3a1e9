import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { THREAD_CURSOR_PATTERN } from './list-threads.query';
import { Ge, Le, Pattern } from './rules';

const AUDIT_LISTING_MAX_LIMIT = 100;
export const AUDIT_LISTING_DEFAULT_LIMIT = 20;

/** GET /audit-events (CONTRACTS §20). */
export class ListAuditEventsQuery {
  @ApiPropertyOptional({ default: AUDIT_LISTING_DEFAULT_LIMIT })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(AUDIT_LISTING_MAX_LIMIT)
  limit?: number;

  /** The `x-next-cursor` of the previous page: the entries recorded before it. */
  @IsOptional()
  @IsString()
  @Pattern(THREAD_CURSOR_PATTERN)
  before?: string;
}
