import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { HumanMessageDto } from './human-message.dto';
import { MemoryNamespaceOption } from './reply-options';
import { Ge, Le, Model, Nullable, OptionalPositiveInt, PG_INTEGER_MAX } from './rules';

export { MEMORY_NAMESPACE_MAX_CHARS } from './reply-options';

/** StartChatOptions of API-SPEC 4.2. */
export class StartChatOptionsDto {
  @IsString()
  agent_id: string;

  /** Required with an API token (API-SPEC §5 rule 4), and every caller of this service has one. */
  @ApiProperty({ description: 'The end user owning the thread; does not select the memory namespace.' })
  @IsString()
  user_id: string;

  /**
   * Caps the tool rounds of the first reply. The server default is said in words, not as a schema `default`:
   * generated clients (openapi-typescript) make a property with a `default` required.
   */
  @ApiPropertyOptional({
    description:
      'Caps the tool rounds of the first reply. Omitted: the server default (DEFAULT_MAX_STEPS, 60 unless the ' +
      'operator changed it).',
  })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(PG_INTEGER_MAX)
  max_steps?: number | null;

  @ApiPropertyOptional({
    description:
      "Namespace the thread may read and update, for its whole life. Omitted: the agent's namespace, else no " +
      'long-term memory tools.',
  })
  @MemoryNamespaceOption()
  memory_namespace?: string | null;

  @ApiPropertyOptional({
    description:
      'Runs the reply with this version of the agent (GET /agents/{id}/versions); unknown: 422. Omitted: the ' +
      'latest version. Follow-ups run the latest again unless they pin one.',
  })
  @OptionalPositiveInt()
  agent_version?: number | null;
}

/** POST /chat body (API-SPEC 4.2). */
export class StartChatDto {
  @IsOptional()
  @Nullable()
  @IsString()
  name?: string | null;

  @IsOptional()
  @Nullable()
  @IsString()
  project_id?: string | null;

  @Model(() => HumanMessageDto)
  message: HumanMessageDto;

  @Model(() => StartChatOptionsDto)
  options: StartChatOptionsDto;
}
