import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { HumanMessageDto } from './human-message.dto';
import { Ge, MaxChars } from './rules';
import { MEMORY_NAMESPACE_MAX_CHARS } from './start-chat.dto';

/** Options of a follow-up message (CONTRACTS §4). */
export class PostMessageOptionsDto {
  /** When given, it must be the thread's owner. */
  @IsOptional()
  @IsString()
  user_id?: string | null;

  @IsOptional()
  @IsInt()
  @Ge(1)
  max_steps?: number | null;

  /** Accepted only when equal to the thread's namespace: a thread's namespace never changes (spec 4.2 rule 4). */
  @IsOptional()
  @IsString()
  @MaxChars(MEMORY_NAMESPACE_MAX_CHARS)
  memory_namespace?: string | null;
}

/** POST /chat/{thread_id} body. */
export class PostMessageDto {
  @IsObject()
  @ValidateNested()
  @Type(() => HumanMessageDto)
  message: HumanMessageDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PostMessageOptionsDto)
  options?: PostMessageOptionsDto | null;
}
