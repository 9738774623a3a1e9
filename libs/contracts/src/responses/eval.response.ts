import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DATE_TIME, FREE_FORM } from './message.response';

export class EvalItemResponse {
  @ApiProperty({ ...FREE_FORM, description: 'The HumanMessage sent.' })
  input: Record<string, unknown>;
  @ApiProperty({ ...FREE_FORM, nullable: true, description: 'The scorers and what each expects.' })
  expected: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'A dataset made from threads: the recorded reply.',
  })
  reference: string | null;
}

export class EvalDatasetSummaryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty()
  item_count: number;
  @ApiProperty(DATE_TIME)
  created_at: string;
}

export class EvalDatasetResponse extends EvalDatasetSummaryResponse {
  @ApiProperty({ type: [EvalItemResponse] })
  items: EvalItemResponse[];
}

export class EvalRunStartedResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
}

class EvalScoreResponse {
  @ApiProperty()
  passed: boolean;
  @ApiPropertyOptional({ description: "Why, when the scorer says (the rubric's judge does)." })
  reason?: string;
}

export class EvalRunItemResponse extends EvalItemResponse {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The reply's content; null until it has ended.",
  })
  output: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { passed: { type: 'boolean' }, reason: { type: 'string' } },
      required: ['passed'],
    },
    nullable: true,
    description: 'One score per scorer of `expected`; null until the reply has ended and been scored.',
  })
  scores: Record<string, EvalScoreResponse> | null;
  @ApiProperty({
    type: 'boolean',
    nullable: true,
    description: 'Every score passed (and the reply succeeded); null until scored.',
  })
  passed: boolean | null;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'null until the item started.',
  })
  reply_id: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  thread_id: string | null;
}

class EvalRunSummaryResponse {
  @ApiProperty()
  items: number;
  @ApiProperty({ description: 'Items scored and passed.' })
  passed: number;
  @ApiProperty({ description: 'passed / items (0 for a run with no item scored yet).' })
  pass_rate: number;
  @ApiProperty()
  input_tokens: number;
  @ApiProperty()
  output_tokens: number;
}

export class EvalRunListItemResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ format: 'uuid' })
  dataset_id: string;
  @ApiProperty({ format: 'uuid' })
  agent_id: string;
  @ApiProperty()
  agent_version: number;
  @ApiProperty({ type: 'string', nullable: true })
  judge_model: string | null;
  @ApiProperty({ enum: ['running', 'done'] })
  status: 'running' | 'done';
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty({ ...DATE_TIME, nullable: true })
  completed_at: string | null;
  @ApiProperty({ type: EvalRunSummaryResponse })
  summary: EvalRunSummaryResponse;
}

export class EvalRunResponse extends EvalRunListItemResponse {
  @ApiProperty({ type: [EvalRunItemResponse] })
  items: EvalRunItemResponse[];
}
