import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { THREAD_CURSOR_PATTERN } from './list-threads.query';
import { Ge, Le, MaxChars, Nullable, Pattern } from './rules';

const FEEDBACK_COMMENT_MAX_CHARS = 2000;
const FEEDBACK_LISTING_MAX_LIMIT = 100;
export const FEEDBACK_LISTING_DEFAULT_LIMIT = 20;

/** PUT /chat/messages/{message_id}/feedback (CONTRACTS §20). */
export class PutFeedbackDto {
  /** 1 (good) or -1 (bad); 0 is refused by the use case (a value_error). */
  @ApiProperty({ enum: [1, -1], type: 'integer' })
  @IsInt()
  @Ge(-1)
  @Le(1)
  rating: number;

  @IsOptional()
  @Nullable()
  @IsString()
  @MaxChars(FEEDBACK_COMMENT_MAX_CHARS)
  comment?: string | null;

  /** When given, the reply's thread must be this end user's (CONTRACTS §2). */
  @IsOptional()
  @IsString()
  user_id?: string;
}

/** GET /feedback (CONTRACTS §20). */
export class ListFeedbackQuery {
  @ApiPropertyOptional({ description: 'Repeat the parameter for several agents: agent_id=A&agent_id=B.' })
  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true })
  agent_id?: string[];

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Feedback given or changed at or after this time.',
  })
  @IsOptional()
  @IsString()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Feedback given or changed before this time.' })
  @IsOptional()
  @IsString()
  to?: string;

  @ApiPropertyOptional({ default: FEEDBACK_LISTING_DEFAULT_LIMIT })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(FEEDBACK_LISTING_MAX_LIMIT)
  limit?: number;

  /** The `x-next-cursor` of the previous page. */
  @IsOptional()
  @IsString()
  @Pattern(THREAD_CURSOR_PATTERN)
  before?: string;
}
