import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DATE_TIME } from './message.response';

/** An MCP server as it is shown back: the names of its environment variables and headers, never their values. */
export class McpServerResponse {
  @ApiProperty({ example: 'github' })
  name: string;
  @ApiPropertyOptional({ description: "A stdio server: the name of its entry in the operator's catalogue." })
  server?: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'A stdio server: names of the environment variables it is given; values are write-only.',
  })
  env_names?: string[];
  @ApiPropertyOptional({ description: 'A remote server (streamable HTTP): the address.' })
  url?: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'A remote server: names of its headers; values are write-only.',
  })
  header_names?: string[];
}

/** An agent's compaction setting (CONTRACTS §19). */
interface CompactionResponse {
  threshold_tokens: number;
  keep_recent_messages: number;
}

/** An agent (CONTRACTS §15): the fields of POST /agents, flat, with its id; the admin CLI prints the same. */
/** An agent's guardrails as GET /agents shows them. */
interface GuardrailsResponse {
  pii: 'off' | 'redact' | 'block';
  blocked_terms: string[];
  moderation_model: string | null;
}

export class AgentResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  organization_id: string;
  @ApiProperty({ example: 'Support' })
  name: string;
  @ApiProperty()
  instructions: string;
  @ApiProperty({
    description:
      "What the agent's callers are told about it: its MCP tool's description (the instructions never are).",
  })
  description: string;
  @ApiProperty({ description: 'builtin, openai:<model> or anthropic:<model>.', example: 'builtin' })
  model: string;
  @ApiProperty({ type: 'string', nullable: true })
  memory_namespace: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Tokens the agent may spend; null: no limit.',
  })
  token_budget: number | null;
  @ApiProperty({ type: 'integer' })
  tokens_used: number;
  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    nullable: true,
    description: 'Tools the agent may use; null: every tool the service has.',
  })
  tools: string[] | null;
  @ApiProperty({ type: [McpServerResponse] })
  mcp: McpServerResponse[];
  @ApiProperty({
    // Inline rather than a $ref: OpenAPI 3.0 ignores nullable beside a $ref.
    type: 'object',
    nullable: true,
    properties: { threshold_tokens: { type: 'integer' }, keep_recent_messages: { type: 'integer' } },
    required: ['threshold_tokens', 'keep_recent_messages'],
    description: 'When a run summarizes the older messages of a thread; null: the service default.',
  })
  compaction: CompactionResponse | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    description:
      'Tool permissions (web, mcp:<server>) or tool names whose calls wait for a person: the reply takes status requires_action until POST /chat/messages/{message_id}/approvals decides.',
    example: ['web'],
  })
  approval_required: string[];
  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    description: 'Models a step is tried on, in order, when the one before fails before its first delta.',
  })
  fallback_models: string[];
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: {
      pii: { type: 'string', enum: ['off', 'redact', 'block'] },
      blocked_terms: { type: 'array', items: { type: 'string' } },
      moderation_model: { type: 'string', nullable: true },
    },
    required: ['pii', 'blocked_terms', 'moderation_model'],
    description: 'What the user’s message and the reply are checked for (CONTRACTS §24); null: nothing.',
  })
  guardrails: GuardrailsResponse | null;
  @ApiProperty({ type: 'number', nullable: true })
  temperature: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  max_output_tokens: number | null;
  @ApiProperty()
  archived: boolean;
  @ApiProperty(DATE_TIME)
  created_at: string;
}

/** GET /agents. */
export class AgentListResponse {
  @ApiProperty({ type: [AgentResponse] })
  agents: AgentResponse[];
}
