import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AuditActorResponse } from './audit-event.response';
import { DATE_TIME } from './message.response';

/** The configuration of an agent in a version: its fields as GET /agents/{id} shows them, without its bookkeeping. */
type AgentConfigResponse = Record<string, unknown>;

/** One immutable version of an agent (CONTRACTS §23). */
export class AgentVersionResponse {
  @ApiProperty({
    example: 3,
    description: 'Counts from 1 per agent; every create, change or restore adds one.',
  })
  version: number;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty({ type: AuditActorResponse, description: 'Who made the change that stored it.' })
  actor: AuditActorResponse;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: 'The version a restore copied; null for a create or a change.',
  })
  restored_from: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Every field of the agent as GET /agents/{id} shows it (id, organization, tokens used and archived ' +
      'excepted); secrets are never shown.',
  })
  config: AgentConfigResponse;
}
