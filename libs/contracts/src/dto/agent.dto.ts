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
  Pattern,
  PG_INTEGER_MAX,
  RefuseFields,
} from './rules';

/** Model ids an agent may name (CONTRACTS §1). */
export const MODEL_PATTERN = /^(builtin|openai:\S+|anthropic:\S+)$/;
/**
 * Tool names an agent's list may hold. `memory` names the memory tools, which a run has only when its thread is
 * bound to a namespace too: a list without it keeps the agent away from memory (CONTRACTS §1, §21).
 */
export const TOOL_PATTERN = /^(clock|web|company_documents|skill_read|memory|mcp:[A-Za-z0-9_-]{1,40})$/;
/** An `approval_required` item: a tool permission (`web`, `mcp:<server>`) or a tool's name (CONTRACTS §19). */
export const APPROVAL_PATTERN = /^(mcp:)?[A-Za-z0-9_-]{1,64}$/;
export const MCP_NAME_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** Limits of an agent's fields (the spec names none; these keep rows and the MCP process table bounded). */
export const AGENT_LIMITS = {
  name: 200,
  instructions: 30000,
  description: 500,
  memoryNamespace: 128,
  tools: 50,
  mcpServers: 20,
  mcpText: 2048,
} as const;

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
  @IsArray()
  @MaxItems(AGENT_LIMITS.tools)
  @IsString({ each: true })
  @Pattern(TOOL_PATTERN.source, { each: true })
  tools?: string[] | null;

  @IsOptional()
  @IsArray()
  @MaxItems(AGENT_LIMITS.mcpServers)
  @Model(() => McpServerDto, { each: true })
  mcp?: McpServerDto[];

  /** null or absent: the service default (COMPACTION_THRESHOLD_TOKENS). */
  @IsOptional()
  @Nullable()
  @Model(() => CompactionDto)
  compaction?: CompactionDto | null;

  /** Tool permissions or tool names whose calls wait for a person's decision (CONTRACTS §19). */
  @IsOptional()
  @IsArray()
  @MaxItems(AGENT_LIMITS.tools)
  @IsString({ each: true })
  @Pattern(APPROVAL_PATTERN.source, { each: true })
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
