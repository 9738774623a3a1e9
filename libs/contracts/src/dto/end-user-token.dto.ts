import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { DATE_TIME } from '../responses/message.response';
import { Ge, IdList, Le, MaxChars, MinChars, StringList } from './rules';
import { MEMORY_NAMESPACE_MAX_CHARS } from './start-chat.dto';

export const END_USER_TOKEN_DEFAULT_TTL_SECONDS = 3600;
const END_USER_TOKEN_MIN_TTL_SECONDS = 60;
const END_USER_TOKEN_MAX_TTL_SECONDS = 86_400;
const END_USER_TOKEN_MAX_AGENT_IDS = 10;
const END_USER_TOKEN_MAX_MEMORY_NAMESPACES = 5;
/** A token carries its user id, and a header has a size: ids longer than this are no one's in practice. */
export const END_USER_ID_MAX_CHARS = 256;

/** POST /end-user-tokens (CONTRACTS §17). */
export class MintEndUserTokenDto {
  @ApiProperty({ description: 'The end user the token acts as.', example: 'user-42' })
  @IsString()
  @MinChars(1)
  @MaxChars(END_USER_ID_MAX_CHARS)
  user_id: string;

  @ApiPropertyOptional({
    description: `How long the token lasts, in seconds. Omitted: ${END_USER_TOKEN_DEFAULT_TTL_SECONDS}.`,
    minimum: END_USER_TOKEN_MIN_TTL_SECONDS,
    maximum: END_USER_TOKEN_MAX_TTL_SECONDS,
  })
  @IsOptional()
  @IsInt()
  @Ge(END_USER_TOKEN_MIN_TTL_SECONDS)
  @Le(END_USER_TOKEN_MAX_TTL_SECONDS)
  ttl_seconds?: number;

  @ApiPropertyOptional({ description: 'Only these agents; without it, every agent of the organization.' })
  @IsOptional()
  @IdList(END_USER_TOKEN_MAX_AGENT_IDS)
  agent_ids?: string[];

  @ApiPropertyOptional({
    description:
      "The memory namespaces its threads may be bound to (options.memory_namespace, or the agent's own); " +
      'binding any other is 403. Omitted: none, and its threads have no memory tools.',
    maxItems: END_USER_TOKEN_MAX_MEMORY_NAMESPACES,
    items: { type: 'string', minLength: 1, maxLength: MEMORY_NAMESPACE_MAX_CHARS },
  })
  @IsOptional()
  @StringList(
    END_USER_TOKEN_MAX_MEMORY_NAMESPACES,
    MinChars(1, { each: true }),
    MaxChars(MEMORY_NAMESPACE_MAX_CHARS, { each: true }),
  )
  memory_namespaces?: string[];
}

export class EndUserTokenResponse {
  @ApiProperty({
    description: 'eut_…: send it as x-service-token or Authorization: Bearer, like a key.',
    pattern: '^eut_',
  })
  token: string;
  @ApiProperty()
  user_id: string;
  @ApiProperty(DATE_TIME)
  expires_at: string;
}
