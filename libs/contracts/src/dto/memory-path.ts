// Limits of memory files (API-SPEC 4.5, §8; CONTRACTS §7), shared by the HTTP DTOs and the agent's memory tools.

/** Spec §8; the same limit as options.memory_namespace of POST /chat. */
export const MEMORY_FILE_NAMESPACE_MAX_CHARS = 128;

/**
 * Content is capped at 256 KiB counted in characters (262144): past it the answer is a 422 `string_too_long`
 * with `ctx.max_length`, like every other limit, rather than a 413. Even at 4 bytes a character the body stays
 * under the gateway's 2 MiB body limit, so the 422 is what a client sees.
 */
export const MEMORY_CONTENT_MAX_CHARS = 256 * 1024;

export const MEMORY_PURPOSE_MAX_CHARS = 1000;
export const MEMORY_PATH_MAX_CHARS = 512;

/*
 * One segment: no slash, backslash or control character, and not `.` or `..`. Written without look-around, and
 * kept as source text, because the same pattern is the one Pydantic's Rust regex engine reports in `msg`.
 */
const SEGMENT_CHAR = String.raw`[^/\\\u0000-\u001f\u007f]`;
const SEGMENT_FIRST = String.raw`[^./\\\u0000-\u001f\u007f]`;
const SEGMENT = String.raw`(?:${SEGMENT_FIRST}${SEGMENT_CHAR}*|\.${SEGMENT_FIRST}${SEGMENT_CHAR}*|\.\.${SEGMENT_CHAR}+)`;

/** `name` or `folder/name`: at most one folder (spec 4.5). */
export const MEMORY_PATH_SOURCE = `^(?:${SEGMENT}/)?${SEGMENT}$`;
/** The rule of MEMORY_PATH_SOURCE in words, as a 422 gives it (the same words as the conformance app's). */
export const MEMORY_PATH_RULE =
  "a memory path is a name, or one folder and a name ('notes.md', 'projects/plan.md'): no other slash, no " +
  "empty part, '.' or '..', backslash or control character";
const MEMORY_PATH_PATTERN = new RegExp(MEMORY_PATH_SOURCE);

/** A folder of the listing: one segment. */
export const MEMORY_FOLDER_SOURCE = `^${SEGMENT}$`;
export const MEMORY_FOLDER_RULE =
  "a memory folder is one name ('projects'): no slash, no '.' or '..', backslash or control character";
export const MEMORY_FOLDER_PATTERN = new RegExp(MEMORY_FOLDER_SOURCE);

/** Why a path is refused, or null when it is a valid memory path (for callers outside the HTTP DTOs). */
export function memoryPathProblem(path: string): string | null {
  if (path.length > MEMORY_PATH_MAX_CHARS) return `path is longer than ${MEMORY_PATH_MAX_CHARS} characters`;
  if (!MEMORY_PATH_PATTERN.test(path)) {
    return 'path must be "name" or "folder/name": one folder at most, no empty segment, ".", "..", backslash or control character';
  }
  return null;
}
