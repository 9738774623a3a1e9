import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { THREAD_CURSOR_PATTERN } from './list-threads.query';
import { Ge, Le, Pattern, PG_INTEGER_MAX } from './rules';

export const AGENT_VERSION_LISTING_DEFAULT_LIMIT = 20;
const AGENT_VERSION_LISTING_MAX_LIMIT = 100;

/** GET /agents/{id}/versions query. */
export class ListAgentVersionsQuery {
  @ApiPropertyOptional({ default: AGENT_VERSION_LISTING_DEFAULT_LIMIT })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(AGENT_VERSION_LISTING_MAX_LIMIT)
  limit?: number;

  /** The `x-next-cursor` of the previous page: the versions older than it. */
  @IsOptional()
  @IsString()
  @Pattern(THREAD_CURSOR_PATTERN)
  before?: string;
}

/** The path of one version: /agents/{id}/versions/{version}. */
export class AgentVersionParams {
  @IsUUID()
  id: string;

  @IsInt()
  @Ge(1)
  @Le(PG_INTEGER_MAX)
  version: number;
}
