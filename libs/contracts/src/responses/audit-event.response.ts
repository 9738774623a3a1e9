import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, AuditAction, AuditTargetType } from '../audit-actions';
import { DATE_TIME } from './message.response';

export class AuditActorResponse {
  @ApiProperty({
    enum: ['key', 'admin'],
    description: 'key: a service key of the organization; admin: the operator, through the admin CLI.',
  })
  type: 'key' | 'admin';
  @ApiProperty({ description: "The key's id, or the operating-system user who ran the admin CLI." })
  id: string;
}

class AuditTargetResponse {
  @ApiProperty({
    enum: AUDIT_TARGET_TYPES,
    description: 'mcp_server: a catalogue name (deployment-wide); organization: its own settings.',
  })
  type: AuditTargetType;
  @ApiProperty({
    description:
      "The target's id. An end user's is never the user id but the hex SHA-256 of " +
      '"parley.end-user.v1\\n{organization_id}\\n{user_id}", so erasing the user leaves the entry whole.',
  })
  id: string;
}

/** One entry of the audit log (CONTRACTS §20). */
export class AuditEventResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ ...DATE_TIME, description: 'When the change was made (its transaction began).' })
  at: string;
  @ApiProperty({ type: AuditActorResponse })
  actor: AuditActorResponse;
  @ApiProperty({ enum: AUDIT_ACTIONS, example: 'agent.updated' })
  action: AuditAction;
  @ApiProperty({ type: AuditTargetResponse })
  target: AuditTargetResponse;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'What changed: names and settings, never a secret, key material or an end user id.',
    example: { fields: ['instructions', 'tools'] },
  })
  details: Record<string, unknown>;
}
