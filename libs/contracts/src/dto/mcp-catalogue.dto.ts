import { IsOptional, IsString } from 'class-validator';
import { MCP_NAME_PATTERN } from './agent.dto';
import { MaxChars, MinChars, Pattern, StringList } from './rules';

/** A name a process environment may hold, as POSIX shells write them. */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Limits of a catalogue entry: a command line and its environment, bounded like an agent's fields. */
const MCP_CATALOGUE_LIMITS = { text: 2048, args: 50, envAllow: 50 } as const;

/** `admin mcp:register` (CONTRACTS §15): a stdio MCP server the operator lets agents start, by name. */
export class RegisterMcpServerDto {
  @IsString()
  @Pattern(MCP_NAME_PATTERN.source)
  name: string;

  @IsString()
  @MinChars(1)
  @MaxChars(MCP_CATALOGUE_LIMITS.text)
  command: string;

  @IsOptional()
  @StringList(MCP_CATALOGUE_LIMITS.args, MaxChars(MCP_CATALOGUE_LIMITS.text, { each: true }))
  args?: string[];

  @IsOptional()
  @StringList(MCP_CATALOGUE_LIMITS.envAllow, Pattern(ENV_NAME_PATTERN.source, { each: true }))
  env_allow?: string[];
}
