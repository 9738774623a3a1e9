import { Transform } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString } from 'class-validator';
import { Ge, Le, MaxItems } from './rules';

export const THREAD_LISTING_MAX_LIMIT = 100;
export const THREAD_LISTING_DEFAULT_LIMIT = 20;
export const THREAD_LISTING_MAX_AGENT_IDS = 10;

/** A query string value is text: digits become a number, anything else stays as sent (and fails `IsInt`). */
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value;

/** `agent_ids=A` arrives as a string, `agent_ids=A&agent_ids=B` as a list. */
const toList = ({ value }: { value: unknown }) =>
  value === undefined || Array.isArray(value) ? value : [value];

/** GET /chat query (CONTRACTS §4). */
export class ListThreadsQuery {
  @IsString()
  user_id: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Ge(1)
  @Le(THREAD_LISTING_MAX_LIMIT)
  limit?: number;

  @IsOptional()
  @Transform(toList)
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
