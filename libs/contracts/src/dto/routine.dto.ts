import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { HumanMessageDto } from './human-message.dto';
import { MemoryNamespaceOption } from './reply-options';
import { Ge, Le, MaxChars, MinChars, Model, PG_INTEGER_MAX } from './rules';

const ROUTINE_NAME_MAX_CHARS = 200;
const ROUTINE_SCHEDULE_MAX_CHARS = 200;
const ROUTINE_TIMEZONE_MAX_CHARS = 64;

/** The options of POST /chat a routine's firings use. */
class RoutineOptionsDto {
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(PG_INTEGER_MAX)
  max_steps?: number | null;

  @MemoryNamespaceOption()
  memory_namespace?: string | null;
}

/**
 * POST /routines (CONTRACTS §13). Whether `schedule` is a 5-field cron expression and `timezone` an IANA name
 * is checked by the use case (a value_error each, as a Pydantic after-validator).
 */
export class CreateRoutineDto {
  @IsString()
  @MinChars(1)
  @MaxChars(ROUTINE_NAME_MAX_CHARS)
  name: string;

  @IsString()
  agent_id: string;

  @IsString()
  user_id: string;

  @ApiPropertyOptional({ example: '0 9 * * 1-5', description: 'A 5-field cron expression.' })
  @IsString()
  @MaxChars(ROUTINE_SCHEDULE_MAX_CHARS)
  schedule: string;

  // Defaults are said in words, not as a schema `default`: generated clients make such a property required.
  @ApiPropertyOptional({ example: 'Europe/Paris', description: 'An IANA time zone. Omitted: UTC.' })
  @IsOptional()
  @IsString()
  @MaxChars(ROUTINE_TIMEZONE_MAX_CHARS)
  timezone?: string;

  @Model(() => HumanMessageDto)
  message: HumanMessageDto;

  @IsOptional()
  @Model(() => RoutineOptionsDto)
  options?: RoutineOptionsDto;

  @ApiPropertyOptional({ description: 'Whether the routine fires. Omitted: true.' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

/** PUT /routines/{id}: partial; the owner (`user_id`) stays. A new schedule or `active` takes effect at once. */
export class UpdateRoutineDto extends PartialType(CreateRoutineDto) {
  // Only the words differ from POST: an omitted field keeps its stored value, it does not take POST's default.
  @ApiPropertyOptional({ example: 'Europe/Paris', description: 'An IANA time zone. Omitted: unchanged.' })
  declare timezone?: string;

  @ApiPropertyOptional({ description: 'Whether the routine fires. Omitted: unchanged.' })
  declare active?: boolean;
}

/** `?user_id=`: the owner, required on every routine route but POST (which takes it in the body). */
export class RoutineOwnerQuery {
  @IsString()
  user_id: string;
}
