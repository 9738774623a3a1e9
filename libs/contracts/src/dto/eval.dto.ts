import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { HumanMessageDto } from './human-message.dto';
import { THREAD_CURSOR_PATTERN } from './list-threads.query';
import {
  Ge,
  Le,
  MaxChars,
  MaxItems,
  MinChars,
  MinItems,
  Model,
  Nullable,
  OptionalModel,
  OptionalPositiveInt,
  Pattern,
} from './rules';

/** Limits of evaluations (CONTRACTS §23). */
const EVAL_LIMITS = {
  items: 1000,
  nameChars: 200,
  expectedChars: 10000,
  regexChars: 1000,
  listing: 100,
} as const;

/** What an item's answer is scored on: each scorer given is one score, and the item passes when all pass. */
class EvalExpectedDto {
  @ApiPropertyOptional({ description: 'The answer, trimmed, equals this text (trimmed).' })
  @IsOptional()
  @IsString()
  @MaxChars(EVAL_LIMITS.expectedChars)
  equals?: string;

  @ApiPropertyOptional({ description: 'The answer contains this text.' })
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(EVAL_LIMITS.expectedChars)
  contains?: string;

  @ApiPropertyOptional({
    description: 'A JavaScript regular expression the answer matches somewhere; invalid: 422.',
  })
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(EVAL_LIMITS.regexChars)
  regex?: string;

  @ApiPropertyOptional({ description: 'The name of a tool the reply called.' })
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(200)
  tool_called?: string;

  @ApiPropertyOptional({
    description: "What a good answer does, in words: the run's judge model answers yes or no, with a reason.",
  })
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(EVAL_LIMITS.expectedChars)
  rubric?: string;
}

class EvalItemDto {
  @Model(() => HumanMessageDto)
  input: HumanMessageDto;

  @OptionalModel(() => EvalExpectedDto)
  expected?: EvalExpectedDto | null;
}

/** POST /evals/datasets: `items`, or `from_threads` (each thread's first user message and its reply). */
export class CreateEvalDatasetDto {
  @IsString()
  @MinChars(1)
  @MaxChars(EVAL_LIMITS.nameChars)
  name: string;

  @ApiPropertyOptional({ type: [EvalItemDto], maxItems: EVAL_LIMITS.items })
  @IsOptional()
  @IsArray()
  @MinItems(1)
  @MaxItems(EVAL_LIMITS.items)
  @Model(() => EvalItemDto, { each: true })
  items?: EvalItemDto[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: EVAL_LIMITS.items,
    description:
      "Threads of the organization: each one's first user message is an item's input, its reply the item's " +
      'reference (shown beside the new answer; scored by nothing unless `expected` is added).',
  })
  @IsOptional()
  @IsArray()
  @MinItems(1)
  @MaxItems(EVAL_LIMITS.items)
  @IsUUID(undefined, { each: true })
  from_threads?: string[];
}

/** POST /evals/runs. */
export class StartEvalRunDto {
  @IsUUID()
  dataset_id: string;

  @IsUUID()
  agent_id: string;

  @ApiPropertyOptional({ description: "The agent version to evaluate; omitted: the agent's latest." })
  @OptionalPositiveInt()
  agent_version?: number | null;

  @ApiPropertyOptional({ description: "The model that grades `rubric`; omitted: the agent's own model." })
  @IsOptional()
  @Nullable()
  @IsString()
  @Pattern('^(builtin|openai:\\S+|anthropic:\\S+)$')
  judge_model?: string | null;
}

/** GET /evals/datasets and GET /evals/runs: newest first, paged as GET /chat. */
export class ListEvalsQuery {
  @ApiPropertyOptional({ default: 20 })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(EVAL_LIMITS.listing)
  limit?: number;

  @IsOptional()
  @IsString()
  @Pattern(THREAD_CURSOR_PATTERN)
  before?: string;
}

export class ListEvalRunsQuery extends ListEvalsQuery {
  @IsUUID()
  agent_id: string;
}
