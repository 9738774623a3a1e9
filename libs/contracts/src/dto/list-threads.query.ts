import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { Ge, IdList, Le, Pattern } from './rules';

const THREAD_LISTING_MAX_LIMIT = 100;
export const THREAD_LISTING_DEFAULT_LIMIT = 20;
const THREAD_LISTING_MAX_AGENT_IDS = 10;
/** A listing cursor: the 16 bytes of the last listed thread's id in base64url, opaque to clients. */
export const THREAD_CURSOR_PATTERN = '^[A-Za-z0-9_-]{22}$';

/** GET /chat query. */
export class ListThreadsQuery {
  @IsString()
  user_id: string;

  @ApiPropertyOptional({ default: THREAD_LISTING_DEFAULT_LIMIT })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(THREAD_LISTING_MAX_LIMIT)
  limit?: number;

  /** Repeated, `agent_ids=A&agent_ids=B`; each an agent id, so a comma list (`A,B`) is a 422, not an empty page. */
  @ApiPropertyOptional({ description: 'Repeat the parameter for several agents: agent_ids=A&agent_ids=B.' })
  @IsOptional()
  @IdList(THREAD_LISTING_MAX_AGENT_IDS)
  agent_ids?: string[];

  /** Our extension: the `x-next-cursor` of the previous page; the threads listed after it. */
  @IsOptional()
  @IsString()
  @Pattern(THREAD_CURSOR_PATTERN)
  before?: string;
}

/** The optional owner check of the other thread calls (CONTRACTS §2). */
export class ThreadOwnerQuery {
  @IsOptional()
  @IsString()
  user_id?: string;
}
