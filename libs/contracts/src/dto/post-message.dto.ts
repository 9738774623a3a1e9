import { IsInt, IsOptional, IsString } from 'class-validator';
import { HumanMessageDto } from './human-message.dto';
import { Ge, Le, MaxChars, Model, Nullable, OneOf, PG_INTEGER_MAX } from './rules';
import { MEMORY_NAMESPACE_MAX_CHARS } from './start-chat.dto';

/** What a follow-up does when its thread still has a live reply (CONTRACTS §12). */
export const MULTITASK_STRATEGIES = ['enqueue', 'reject', 'interrupt'] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** Options of a follow-up message (CONTRACTS §4, §12). */
class PostMessageOptionsDto {
  /** When given, it must be the thread's owner. */
  @IsOptional()
  @Nullable()
  @IsString()
  user_id?: string | null;

  @IsOptional()
  @Nullable()
  @IsInt()
  @Ge(1)
  @Le(PG_INTEGER_MAX)
  max_steps?: number | null;

  /** Accepted only when equal to the thread's namespace: a thread's namespace never changes (spec 4.2 rule 4). */
  @IsOptional()
  @Nullable()
  @IsString()
  @MaxChars(MEMORY_NAMESPACE_MAX_CHARS)
  memory_namespace?: string | null;

  /** `enqueue` when absent or null. */
  @IsOptional()
  @Nullable()
  @OneOf(MULTITASK_STRATEGIES)
  multitask_strategy?: MultitaskStrategy | null;

  /** Runs this reply with that version of the thread's agent (CONTRACTS §23); absent: the latest. */
  @IsOptional()
  @Nullable()
  @IsInt()
  @Ge(1)
  @Le(PG_INTEGER_MAX)
  agent_version?: number | null;
}

/** POST /chat/{thread_id} body. */
export class PostMessageDto {
  @Model(() => HumanMessageDto)
  message: HumanMessageDto;

  @IsOptional()
  @Nullable()
  @Model(() => PostMessageOptionsDto)
  options?: PostMessageOptionsDto | null;
}
