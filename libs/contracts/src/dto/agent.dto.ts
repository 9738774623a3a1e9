import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsArray, IsInt, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import {
  EXACT_INTEGER_MAX,
  Ge,
  Le,
  MaxChars,
  MaxItems,
  MinChars,
  Model,
  Nullable,
  OneOf,
  OptionalModel,
  Pattern,
  PG_INTEGER_MAX,
  RefuseFields,
  StringList,
} from './rules';

/** Model ids an agent may name (CONTRACTS §1). */
const MODEL_PATTERN = /^(builtin|openai:\S+|anthropic:\S+)$/;
/**
 * Tool names an agent's list may hold. `memory` names the memory tools, which a run has only when its thread is
 * bound to a namespace too: a list without it keeps the agent away from memory (CONTRACTS §1, §21).
 */
const TOOL_PATTERN = /^(clock|web|company_documents|skill_read|memory|mcp:[A-Za-z0-9_-]{1,40})$/;
/** An `approval_required` item: a tool permission (`web`, `mcp:<server>`) or a tool's name (CONTRACTS §19). */
const APPROVAL_PATTERN = /^(mcp:)?[A-Za-z0-9_-]{1,64}$/;
export const MCP_NAME_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** Limits of an agent's fields (the spec names none; these keep rows and the MCP process table bounded). */
const AGENT_LIMITS = {
  name: 200,
  instructions: 30000,
  description: 500,
  memoryNamespace: 128,
  tools: 50,
  mcpServers: 20,
  mcpText: 2048,
  fallbackModels: 3,
  blockedTerms: 100,
  blockedTerm: 200,
} as const;

/** What a guardrail does with PII in the user's message (CONTRACTS §24). */
const PII_ACTIONS = ['off', 'redact', 'block'] as const;

/** An agent's guardrails (CONTRACTS §24): checked on the user's message and on the reply as it streams. */
export class GuardrailsDto {
  @ApiProperty({
    enum: PII_ACTIONS,
    description:
      'E-mail addresses, phone numbers, payment card numbers (Luhn) and IBANs (check digits) in the user’s ' +
      'message: left alone, replaced by [EMAIL], [PHONE], [CARD], [IBAN] before the model sees it, or the ' +
      'reply ends error_code "guardrail_blocked" before any model call. In the reply: redact and block stop it.',
  })
  @IsString()
  @OneOf(PII_ACTIONS)
  pii: (typeof PII_ACTIONS)[number];

  @ApiPropertyOptional({
    type: [String],
    description: 'Words or phrases (case-insensitive) that block the user’s message or stop the reply.',
  })
  @IsOptional()
  @StringList(
    AGENT_LIMITS.blockedTerms,
    MinChars(1, { each: true }),
    MaxChars(AGENT_LIMITS.blockedTerm, { each: true }),
  )
  blocked_terms?: string[];

  @ApiPropertyOptional({
    description:
      'A model (same form as model) asked whether the message and the reply should be blocked; when it cannot ' +
      'answer, the reply is blocked (guardrails fail closed).',
  })
  @IsOptional()
  @Nullable()
  @IsString()
  @Pattern(MODEL_PATTERN.source)
  moderation_model?: string | null;
}

/**
 * One MCP server (CONTRACTS §15): `{name, url, headers?}` (a remote server over streamable HTTP, on a public
 * address) or `{name, server, env?}` (a stdio server of the operator's catalogue). `env` and `headers` values are
 * write-only; which of the two shapes was meant, the address and the catalogue are checked by the use case. A
 * tenant never names a command: the old `{name, command, args}` form is refused.
 */
@RefuseFields(
  ['command', 'args'],
  "command and args are not accepted: a stdio MCP server is one of the operator's catalogue, named by server",
)
export class McpServerDto {
  @ApiProperty({ description: 'The name its tools go by: mcp:<name> in tools, <name>__<tool> in a run.' })
  @IsString()
  @Pattern(MCP_NAME_PATTERN.source)
  name: string;

  @ApiPropertyOptional({
    description:
      "A stdio server: the name of an entry of the operator's catalogue (admin mcp:register). Unknown: 422.",
  })
  @IsOptional()
  @IsString()
  @Pattern(MCP_NAME_PATTERN.source)
  server?: string;

  @ApiPropertyOptional({
    description:
      "A catalogued server's environment variables, only those its catalogue entry allows (others: 422). " +
      'Write-only.',
  })
  @IsOptional()
  @IsObject()
  env?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      'A remote server (streamable HTTP): an http(s) URL whose host resolves only to public addresses ' +
      '(private, loopback, link-local and this host: 422), checked again at every connection.',
  })
  @IsOptional()
  @IsString()
  @MaxChars(AGENT_LIMITS.mcpText)
  url?: string;

  @ApiPropertyOptional({
    description: "A remote server's request headers (e.g. authorization). Write-only.",
  })
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;
}

/** The latest messages a thread's summary leaves out when the agent names no number (CONTRACTS §19). */
export const DEFAULT_KEEP_RECENT_MESSAGES = 6;

/** When a run summarizes the thread's older messages (CONTRACTS §19). */
export class CompactionDto {
  @ApiProperty({
    description: "The history's size, in estimated tokens, past which a run first summarizes it; 0: never.",
    example: 60000,
  })
  @IsInt()
  @Ge(0)
  @Le(PG_INTEGER_MAX)
  threshold_tokens: number;

  @ApiPropertyOptional({
    description: `The latest messages a summary leaves out, word for word. Omitted: ${DEFAULT_KEEP_RECENT_MESSAGES}.`,
  })
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(1000)
  keep_recent_messages?: number;
}

/** POST /agents (CONTRACTS §15). */
export class CreateAgentDto {
  @IsString()
  @MinChars(1)
  @MaxChars(AGENT_LIMITS.name)
  name: string;

  @IsOptional()
  @IsString()
  @MaxChars(AGENT_LIMITS.instructions)
  instructions?: string;

  /** What the agent's callers are told about it (its MCP tool's description); the instructions never are. */
  @IsOptional()
  @IsString()
  @MaxChars(AGENT_LIMITS.description)
  description?: string;

  @IsOptional()
  @IsString()
  @Pattern(MODEL_PATTERN.source)
  model?: string;

  /** Tried in order when a step's model call fails before its first delta (CONTRACTS §24). */
  @IsOptional()
  @StringList(AGENT_LIMITS.fallbackModels, Pattern(MODEL_PATTERN.source, { each: true }))
  fallback_models?: string[];

  /** null: none (CONTRACTS §24). */
  @OptionalModel(() => GuardrailsDto)
  guardrails?: GuardrailsDto | null;

  /** null clears it on update. */
  @IsOptional()
  @Nullable()
  @IsString()
  @MinChars(1)
  @MaxChars(AGENT_LIMITS.memoryNamespace)
  memory_namespace?: string | null;

  /** null: no limit. */
  @IsOptional()
  @Nullable()
  @IsInt()
  @Ge(0)
  @Le(EXACT_INTEGER_MAX)
  token_budget?: number | null;

  /** null: every tool the service has (CONTRACTS §1). */
  @IsOptional()
  @Nullable()
  @StringList(AGENT_LIMITS.tools, Pattern(TOOL_PATTERN.source, { each: true }))
  tools?: string[] | null;

  @IsOptional()
  @IsArray()
  @MaxItems(AGENT_LIMITS.mcpServers)
  @Model(() => McpServerDto, { each: true })
  mcp?: McpServerDto[];

  /** null or absent: the service default (COMPACTION_THRESHOLD_TOKENS). */
  @OptionalModel(() => CompactionDto)
  compaction?: CompactionDto | null;

  /** Tool permissions or tool names whose calls wait for a person's decision (CONTRACTS §19). */
  @IsOptional()
  @StringList(AGENT_LIMITS.tools, Pattern(APPROVAL_PATTERN.source, { each: true }))
  approval_required?: string[];

  @IsOptional()
  @IsNumber()
  @Ge(0)
  @Le(2)
  temperature?: number;

  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(PG_INTEGER_MAX)
  max_output_tokens?: number;
}

/** PUT /agents/{id}: any of the fields of POST; those left out keep their value. */
export class UpdateAgentDto extends PartialType(CreateAgentDto) {}
