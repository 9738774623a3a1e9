import { PartialType } from '@nestjs/swagger';
import { IsArray, IsInt, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import { Ge, Le, MaxChars, MaxItems, MinChars, Model, Nullable, Pattern } from './rules';

/** Model ids an agent may name (CONTRACTS §1). */
export const MODEL_PATTERN = /^(builtin|openai:\S+|anthropic:\S+)$/;
/** Tool names an agent's list may hold. Memory tools come with a thread's namespace, not from the list. */
export const TOOL_PATTERN = /^(clock|web|company_documents|skill_read|mcp:[A-Za-z0-9_-]{1,40})$/;
export const MCP_NAME_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** Limits of an agent's fields (the spec names none; these keep rows and the MCP process table bounded). */
export const AGENT_LIMITS = {
  name: 200,
  instructions: 30000,
  memoryNamespace: 128,
  tools: 50,
  mcpServers: 20,
  mcpText: 2048,
  mcpArgs: 50,
} as const;

/**
 * One MCP server (CONTRACTS §15): `{name, command, args?, env?}` (stdio) or `{name, url, headers?}` (streamable
 * HTTP). `env` and `headers` values are write-only; which of the two shapes was meant is checked by the use case.
 */
export class McpServerDto {
  @IsString()
  @Pattern(MCP_NAME_PATTERN.source)
  name: string;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(AGENT_LIMITS.mcpText)
  command?: string;

  @IsOptional()
  @IsArray()
  @MaxItems(AGENT_LIMITS.mcpArgs)
  @IsString({ each: true })
  args?: string[];

  @IsOptional()
  @IsObject()
  env?: Record<string, string>;

  @IsOptional()
  @IsString()
  @MaxChars(AGENT_LIMITS.mcpText)
  url?: string;

  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;
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

  @IsOptional()
  @IsNumber()
  @Ge(0)
  @Le(2)
  temperature?: number;

  @IsOptional()
  @IsInt()
  @Ge(1)
  max_output_tokens?: number;
}

/** PUT /agents/{id}: any of the fields of POST; those left out keep their value. */
export class UpdateAgentDto extends PartialType(CreateAgentDto) {}
