import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME, FREE_FORM, isoOrNull } from './message.response';

/** A routine as every route answers it (CONTRACTS §13), plus why it stopped firing by itself. */
export class RoutineResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty({ format: 'uuid' })
  agent_id: string;
  @ApiProperty({ description: 'The end user who owns it and its threads.' })
  user_id: string;
  @ApiProperty({ example: '0 9 * * 1-5' })
  schedule: string;
  @ApiProperty({ example: 'UTC' })
  timezone: string;
  @ApiProperty({ ...FREE_FORM, description: 'The HumanMessage each firing sends.' })
  message: Record<string, unknown>;
  @ApiProperty({ ...FREE_FORM, description: '`max_steps` and `memory_namespace` of each firing.' })
  options: Record<string, unknown>;
  @ApiProperty()
  active: boolean;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why it stopped firing by itself (its agent archived, its key revoked); null otherwise.',
  })
  inactive_reason: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  next_run_at: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  last_run_at: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  last_thread_id: string | null;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty(DATE_TIME)
  updated_at: string;
}

/** The stored routine fields the response shows. */
interface RoutineRecord {
  id: string;
  name: string;
  agentId: string;
  userId: string;
  schedule: string;
  timezone: string;
  message: object;
  options: object;
  active: boolean;
  inactiveReason: string | null;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastThreadId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toRoutineResponse(routine: RoutineRecord): RoutineResponse {
  return {
    id: routine.id,
    name: routine.name,
    agent_id: routine.agentId,
    user_id: routine.userId,
    schedule: routine.schedule,
    timezone: routine.timezone,
    message: { ...routine.message },
    options: { ...routine.options },
    active: routine.active,
    inactive_reason: routine.inactiveReason,
    next_run_at: isoOrNull(routine.nextRunAt),
    last_run_at: isoOrNull(routine.lastRunAt),
    last_thread_id: routine.lastThreadId,
    created_at: routine.createdAt.toISOString(),
    updated_at: routine.updatedAt.toISOString(),
  };
}
