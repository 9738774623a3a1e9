import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsInt, IsOptional, IsString } from 'class-validator';
import { Ge, Le, MaxItems } from './rules';

export const THREAD_LISTING_MAX_LIMIT = 100;
export const THREAD_LISTING_DEFAULT_LIMIT = 20;
export const THREAD_LISTING_MAX_AGENT_IDS = 10;

/** GET /chat query (CONTRACTS §4). */
export class ListThreadsQuery {
  @IsString()
  user_id: string;

  @ApiPropertyOptional({ default: THREAD_LISTING_DEFAULT_LIMIT })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(THREAD_LISTING_MAX_LIMIT)
  limit?: number;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxItems(THREAD_LISTING_MAX_AGENT_IDS)
  agent_ids?: string[];
}

/** The optional owner check of the other thread calls (CONTRACTS §2). */
export class ThreadOwnerQuery {
  @IsOptional()
  @IsString()
  user_id?: string;
}
