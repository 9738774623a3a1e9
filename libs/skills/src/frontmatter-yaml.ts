import { parse as parseYaml } from 'yaml';
import type { ParseFunction } from '@app/documents';

/**
 * The YAML of a SKILL.md frontmatter as plain values. A parsing thread loads this module alone (some YAML of
 * 100,000 characters costs seconds to parse), so it imports only the parser.
 */
export function parseFrontmatterYaml(yaml: string): unknown {
  return parseYaml(yaml);
}

export const PARSE_FRONTMATTER_YAML: ParseFunction = { module: __filename, name: parseFrontmatterYaml.name };
