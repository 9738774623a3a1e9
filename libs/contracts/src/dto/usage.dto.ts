import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID } from 'class-validator';
import { OneOf, PatternRule } from './rules';

const USAGE_GROUPINGS = ['user', 'agent', 'day', 'model'] as const;
type UsageGroupBy = (typeof USAGE_GROUPINGS)[number];

/** A UTC day as GET /usage takes it; whether the day exists (no 31 February) the use case checks. */
const USAGE_DAY_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$';
const DAY_REASON = 'must be a day as YYYY-MM-DD';

/** GET /usage (CONTRACTS §20). */
export class UsageQuery {
  @ApiPropertyOptional({
    description: 'First UTC day counted, YYYY-MM-DD; the first day of this month when absent.',
  })
  @IsOptional()
  @IsString()
  @PatternRule(USAGE_DAY_PATTERN, DAY_REASON)
  from?: string;

  @ApiPropertyOptional({ description: 'Last UTC day counted (included), YYYY-MM-DD; today when absent.' })
  @IsOptional()
  @IsString()
  @PatternRule(USAGE_DAY_PATTERN, DAY_REASON)
  to?: string;

  @ApiPropertyOptional({
    enum: USAGE_GROUPINGS,
    description: 'One row per value; one row in all when absent.',
  })
  @IsOptional()
  @OneOf(USAGE_GROUPINGS)
  group_by?: UsageGroupBy;

  @IsOptional()
  @IsString()
  user_id?: string;

  @IsOptional()
  @IsUUID('all')
  agent_id?: string;
}
