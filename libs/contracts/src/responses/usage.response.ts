import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One group of GET /usage: the key it is grouped by (absent without group_by) and its replies' sums. */
export class UsageRow {
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'group_by=user; null: replies of no end user.',
  })
  user_id?: string | null;
  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true, description: 'group_by=agent.' })
  agent_id?: string | null;
  @ApiPropertyOptional({
    type: 'string',
    format: 'date',
    description: 'group_by=day: the UTC day replies ended.',
  })
  day?: string;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: "group_by=model: the agent's model." })
  model?: string | null;
  @ApiProperty({ type: 'integer' })
  replies: number;
  @ApiProperty({ type: 'integer' })
  input_tokens: number;
  @ApiProperty({ type: 'integer' })
  output_tokens: number;
  @ApiProperty({ type: 'integer' })
  tool_calls: number;
  @ApiProperty({
    type: 'integer',
    description:
      'The part of input_tokens the vendors read from their prompt caches (priced by cached_input_per_mtok).',
  })
  cached_input_tokens: number;
  @ApiProperty({ description: 'From MODEL_PRICES, per model; a model without a price costs 0.' })
  cost_usd: number;
}

export class UsageResponse {
  @ApiProperty({ type: [UsageRow] })
  rows: UsageRow[];
}
