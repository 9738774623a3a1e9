import { InvalidInputError, pydanticMessage, ValidationIssue, valueErrorMessage } from '@app/contracts';
import { SkillFrontmatter } from '@app/persistence';
import { ParseLimitError, UntrustedParsing } from '@app/documents';
import { PARSE_FRONTMATTER_YAML, parseFrontmatterYaml } from './frontmatter-yaml';

const SKILL_NAME_PATTERN = /^[a-z0-9-]{1,64}$/;
/** Largest SKILL.md accepted (the instructions are given to the model whole). */
const MAX_SKILL_DOCUMENT_CHARS = 100_000;

interface SkillDocument {
  frontmatter: SkillFrontmatter;
  body: string;
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/**
 * Parses a SKILL.md: YAML frontmatter between `---` lines, then Markdown instructions (CONTRACTS §11).
 * Problems are 422s located at `loc` (the field that carried the document) plus the frontmatter key. The YAML
 * is parsed in this thread: for the platform's own documents; an uploaded one goes through
 * parseUploadedSkillDocument.
 */
export function parseSkillDocument(text: string, loc: (string | number)[]): SkillDocument {
  const { yaml, body } = splitSkillDocument(text, loc);
  let raw: unknown;
  try {
    raw = parseFrontmatterYaml(yaml);
  } catch (error) {
    throw invalidYaml(loc, error as Error);
  }
  return { frontmatter: frontmatterOf(raw, loc), body };
}

/**
 * parseSkillDocument for a document of an end user: its YAML is parsed in a parsing thread with a deadline, so
 * a frontmatter crafted to be slow (deep nesting, thousands of keys) does not hold the gateway's event loop.
 */
export async function parseUploadedSkillDocument(
  text: string,
  loc: (string | number)[],
  parsing: UntrustedParsing,
  timeoutMs: number,
): Promise<SkillDocument> {
  const { yaml, body } = splitSkillDocument(text, loc);
  let raw: unknown;
  try {
    raw = await parsing.run(PARSE_FRONTMATTER_YAML, [yaml], timeoutMs);
  } catch (error) {
    throw invalidYaml(loc, error as Error);
  }
  return { frontmatter: frontmatterOf(raw, loc), body };
}

const located = (
  loc: (string | number)[],
  issues: Omit<ValidationIssue, 'loc'>[],
  at: (string | number)[][] = [],
) => new InvalidInputError(issues.map((issue, index) => ({ ...issue, loc: [...loc, ...(at[index] ?? [])] })));

function invalidYaml(loc: (string | number)[], error: Error): InvalidInputError {
  // A parse stopped at its limit says so whole; a YAML error's first line says where.
  const reason = error instanceof ParseLimitError ? error.message : error.message.split('\n')[0];
  return located(loc, [
    { type: 'value_error', msg: valueErrorMessage(`invalid YAML frontmatter: ${reason}`) },
  ]);
}

/** The frontmatter's YAML and the instructions after it, within the size limit. */
function splitSkillDocument(text: string, loc: (string | number)[]): { yaml: string; body: string } {
  if (text.length > MAX_SKILL_DOCUMENT_CHARS) {
    throw located(loc, [
      {
        type: 'string_too_long',
        msg: pydanticMessage('string_too_long', { max_length: MAX_SKILL_DOCUMENT_CHARS }),
        ctx: { max_length: MAX_SKILL_DOCUMENT_CHARS },
      },
    ]);
  }
  const match = FRONTMATTER.exec(text);
  if (!match) {
    throw located(loc, [
      {
        type: 'value_error',
        msg: valueErrorMessage('a SKILL.md starts with YAML frontmatter between --- lines'),
      },
    ]);
  }
  return { yaml: match[1], body: match[2].trim() };
}

/** The frontmatter's fields checked (422 at each bad key) from the parsed YAML. */
function frontmatterOf(raw: unknown, loc: (string | number)[]): SkillFrontmatter {
  const fail = (issues: Omit<ValidationIssue, 'loc'>[], at: (string | number)[][] = []) =>
    located(loc, issues, at);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw fail([{ type: 'value_error', msg: valueErrorMessage('the frontmatter must be a YAML mapping') }]);
  }
  const fields = raw as Record<string, unknown>;
  const issues: Omit<ValidationIssue, 'loc'>[] = [];
  const at: (string | number)[][] = [];
  const problem = (key: string, issue: Omit<ValidationIssue, 'loc'>) => {
    issues.push({ ...issue, input: fields[key] });
    at.push(['frontmatter', key]);
  };
  const requiredString = (key: string) => {
    if (fields[key] === undefined || fields[key] === null)
      problem(key, { type: 'missing', msg: pydanticMessage('missing') });
    else if (typeof fields[key] !== 'string')
      problem(key, { type: 'string_type', msg: pydanticMessage('string_type') });
  };
  requiredString('name');
  requiredString('description');
  if (typeof fields.name === 'string' && !SKILL_NAME_PATTERN.test(fields.name)) {
    problem('name', {
      type: 'string_pattern_mismatch',
      msg: pydanticMessage('string_pattern_mismatch', { pattern: SKILL_NAME_PATTERN.source }),
      ctx: { pattern: SKILL_NAME_PATTERN.source },
    });
  }
  for (const key of ['license', 'compatibility']) {
    if (fields[key] !== undefined && typeof fields[key] !== 'string') {
      problem(key, { type: 'string_type', msg: pydanticMessage('string_type') });
    }
  }
  if (
    fields.metadata !== undefined &&
    (typeof fields.metadata !== 'object' || fields.metadata === null || Array.isArray(fields.metadata))
  ) {
    problem('metadata', { type: 'dict_type', msg: pydanticMessage('dict_type') });
  }
  const allowedTools = toolList(fields['allowed-tools']);
  if (allowedTools === null) {
    problem('allowed-tools', {
      type: 'list_type',
      msg: 'Input should be a list of tool names or a space-separated string',
    });
  }
  if (issues.length > 0) throw fail(issues, at);

  const frontmatter: SkillFrontmatter = {
    name: fields.name as string,
    description: fields.description as string,
  };
  if (fields.license !== undefined) frontmatter.license = fields.license as string;
  if (fields.compatibility !== undefined) frontmatter.compatibility = fields.compatibility as string;
  if (fields.metadata !== undefined) frontmatter.metadata = fields.metadata as Record<string, unknown>;
  if (allowedTools !== undefined) frontmatter.allowed_tools = allowedTools ?? [];
  return frontmatter;
}

/** `allowed-tools` is a YAML list or, as in the Agent Skills format, one space-separated string. */
function toolList(value: unknown): string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return null;
}
