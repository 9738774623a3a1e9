import { InvalidInputError, pydanticMessage, ValidationIssue, valueErrorMessage } from '@app/contracts';
import { Store } from './dto/connection.dto';

/** Text search configurations a source may ask for (PostgreSQL's built-in ones). */
const SOURCE_LANGUAGES = [
  'simple',
  'arabic',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
] as const;

const DRIVE_ID = /^[A-Za-z0-9_-]{1,256}$/;

interface Field {
  name: string;
  kind: 'string' | 'boolean';
  required: boolean;
  pattern?: RegExp;
  maxLength?: number;
}

const FIELDS: Record<Store, Field[]> = {
  googledrive: [
    { name: 'folder_id', kind: 'string', required: true, pattern: DRIVE_ID },
    { name: 'recursive', kind: 'boolean', required: false },
  ],
  sharepoint: [
    { name: 'site_id', kind: 'string', required: true, maxLength: 512 },
    { name: 'drive_id', kind: 'string', required: false, maxLength: 512 },
    { name: 'folder_path', kind: 'string', required: false, maxLength: 1024 },
  ],
  draganddrop: [],
};

/**
 * `config` by store (CONTRACTS §9): googledrive `{folder_id, recursive?}`, sharepoint `{site_id, drive_id?,
 * folder_path?}`, draganddrop `{}`; each may name a text-search `language` (default english). Answers the
 * config as stored (known keys only) or throws 422 items at `["body", "config", key]`.
 */
export function parseStoreConfig(
  store: Store,
  config: Record<string, unknown>,
): { config: Record<string, unknown>; language: string } {
  const issues: ValidationIssue[] = [];
  const parsed: Record<string, unknown> = {};
  for (const field of FIELDS[store]) {
    const value = config[field.name];
    const loc = ['body', 'config', field.name];
    if (value === undefined || value === null) {
      if (field.required) issues.push({ loc, msg: pydanticMessage('missing'), type: 'missing', input: null });
      continue;
    }
    if (field.kind === 'boolean') {
      if (typeof value !== 'boolean')
        issues.push({ loc, msg: pydanticMessage('bool_type'), type: 'bool_type', input: value });
      else parsed[field.name] = value;
      continue;
    }
    if (typeof value !== 'string') {
      issues.push({ loc, msg: pydanticMessage('string_type'), type: 'string_type', input: value });
    } else if (value.length === 0 && field.required) {
      issues.push({
        loc,
        msg: pydanticMessage('string_too_short', { min_length: 1 }),
        type: 'string_too_short',
        input: value,
        ctx: { min_length: 1 },
      });
    } else if (field.pattern && !field.pattern.test(value)) {
      issues.push({
        loc,
        msg: pydanticMessage('string_pattern_mismatch', { pattern: field.pattern.source }),
        type: 'string_pattern_mismatch',
        input: value,
        ctx: { pattern: field.pattern.source },
      });
    } else if (field.maxLength && value.length > field.maxLength) {
      issues.push({
        loc,
        msg: pydanticMessage('string_too_long', { max_length: field.maxLength }),
        type: 'string_too_long',
        input: value,
        ctx: { max_length: field.maxLength },
      });
    } else if (
      field.name === 'folder_path' &&
      value.split('/').some((segment) => segment === '..' || segment === '.')
    ) {
      issues.push({
        loc,
        msg: valueErrorMessage('a folder path may not contain . or .. segments'),
        type: 'value_error',
        input: value,
      });
    } else {
      parsed[field.name] = value;
    }
  }
  let language = 'english';
  if (config.language !== undefined) {
    if (
      typeof config.language !== 'string' ||
      !(SOURCE_LANGUAGES as readonly string[]).includes(config.language)
    ) {
      issues.push({
        loc: ['body', 'config', 'language'],
        msg: pydanticMessage('enum', {
          expected: `one of ${SOURCE_LANGUAGES.map((l) => `'${l}'`).join(', ')}`,
        }),
        type: 'enum',
        input: config.language,
      });
    } else {
      language = config.language;
      parsed.language = language;
    }
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  return { config: parsed, language };
}
