import { IsArray, IsInt, IsOptional, IsString } from 'class-validator';
import { Le, LiteralOrPattern, MaxChars, MaxItems, Nullable, PG_INTEGER_MAX, UniqueItems } from './rules';

/** Limits of API-SPEC 2.7 / §8. */
export const MESSAGE_CONTENT_MAX_CHARS = 30000;
export const MESSAGE_FILE_IDS_MAX_ITEMS = 5;
/** Tools a message may switch off by name; MCP tools are named `mcp:<server>`. */
const DISABLABLE_TOOLS = ['web', 'company_documents'] as const;
const MCP_TOOL_PATTERN = '^mcp:';

/** The user's message (API-SPEC 2.7). */
export class HumanMessageDto {
  @IsString()
  @MaxChars(MESSAGE_CONTENT_MAX_CHARS)
  content: string;

  @IsOptional()
  @Nullable()
  @IsArray()
  @IsInt({ each: true })
  @Le(PG_INTEGER_MAX, { each: true })
  source_ids?: number[] | null;

  @IsOptional()
  @Nullable()
  @IsArray()
  @IsString({ each: true })
  document_ids?: string[] | null;

  /** Each item is one of DISABLABLE_TOOLS or an MCP tool name. */
  @IsOptional()
  @Nullable()
  @IsArray()
  @LiteralOrPattern(DISABLABLE_TOOLS, MCP_TOOL_PATTERN, { each: true })
  disabled_tools?: string[] | null;

  @IsOptional()
  @Nullable()
  @IsArray()
  @IsString({ each: true })
  @MaxItems(MESSAGE_FILE_IDS_MAX_ITEMS)
  @UniqueItems()
  file_ids?: string[] | null;
}
