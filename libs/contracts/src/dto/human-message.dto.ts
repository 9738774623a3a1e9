import { IsArray, IsOptional, IsString, ValidateBy, ValidationOptions } from 'class-validator';
import { RuleContext } from '../validation-error';
import { MaxChars, MaxItems, UniqueItems } from './rules';

/** Limits of API-SPEC 2.7 / §8. */
export const MESSAGE_CONTENT_MAX_CHARS = 30000;
export const MESSAGE_FILE_IDS_MAX_ITEMS = 5;
/** Tools a message may switch off by name; MCP tools are named `mcp:<server>`. */
export const DISABLABLE_TOOLS = ['web', 'company_documents'] as const;
export const MCP_TOOL_PATTERN = /^mcp:/;

/**
 * A rule on each item of a list, reported at the failing item's index (as Pydantic does). A value that is
 * not a list passes, so `IsArray` alone reports it as `list_type`.
 */
function EachItem(
  name: string,
  accepts: (item: unknown) => boolean,
  pydantic: RuleContext['pydantic'],
  options?: ValidationOptions,
) {
  const context: RuleContext = { pydantic, failsItem: (item) => !accepts(item) };
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || value.every(accepts),
        defaultMessage: () => `each item of $property fails ${name}`,
      },
    },
    { ...options, context },
  );
}

const EachString = () =>
  EachItem(
    'eachString',
    (item) => typeof item === 'string',
    () => ({ type: 'string_type', msg: 'Input should be a valid string' }),
  );

const EachInt = () =>
  EachItem(
    'eachInt',
    (item) => typeof item === 'number' && Number.isInteger(item),
    (item) =>
      typeof item === 'string'
        ? {
            type: 'int_parsing',
            msg: 'Input should be a valid integer, unable to parse string as an integer',
          }
        : { type: 'int_type', msg: 'Input should be a valid integer' },
  );

const TOOL_EXPECTED = `'web', 'company_documents' or a string matching '${MCP_TOOL_PATTERN.source}'`;

const EachDisablableTool = () =>
  EachItem(
    'eachDisablableTool',
    (item) =>
      typeof item === 'string' &&
      ((DISABLABLE_TOOLS as readonly string[]).includes(item) || MCP_TOOL_PATTERN.test(item)),
    (item) =>
      typeof item === 'string'
        ? { type: 'enum', msg: `Input should be ${TOOL_EXPECTED}`, ctx: { expected: TOOL_EXPECTED } }
        : { type: 'string_type', msg: 'Input should be a valid string' },
  );

/** The user's message (API-SPEC 2.7). */
export class HumanMessageDto {
  @IsString()
  @MaxChars(MESSAGE_CONTENT_MAX_CHARS)
  content: string;

  @IsOptional()
  @IsArray()
  @EachInt()
  source_ids?: number[] | null;

  @IsOptional()
  @IsArray()
  @EachString()
  document_ids?: string[] | null;

  @IsOptional()
  @IsArray()
  @EachDisablableTool()
  disabled_tools?: string[] | null;

  @IsOptional()
  @IsArray()
  @EachString()
  @MaxItems(MESSAGE_FILE_IDS_MAX_ITEMS)
  @UniqueItems()
  file_ids?: string[] | null;
}
