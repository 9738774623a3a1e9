import { MEMORY_FOLDER_PATTERN, MEMORY_PATH_MAX_CHARS, memoryPathProblem } from './memory-path';

describe('memory paths', () => {
  it.each(['a', 'a.md', 'notes/a.md', '.hidden', 'notes/.hidden', '..a', 'a..', 'a b/c d', 'ünï/cödé'])(
    'accepts %j',
    (path) => {
      expect(memoryPathProblem(path)).toBeNull();
    },
  );

  it.each([
    ['two folders', 'a/b/c'],
    ['empty', ''],
    ['a leading slash', '/a'],
    ['a trailing slash', 'a/'],
    ['an empty segment', 'a//b'],
    ['.', '.'],
    ['..', '..'],
    ['../ as folder', '../a'],
    ['.. as name', 'a/..'],
    ['./ as folder', './a'],
    ['. as name', 'a/.'],
    ['a backslash', 'a\\b'],
    ['a NUL', 'a\u0000b'],
    ['a newline', 'a\nb'],
    ['a DEL', 'a\u007fb'],
  ])('refuses %s', (_what, path) => {
    expect(memoryPathProblem(path)).toMatch(/one folder at most/);
  });

  it('refuses a path past its length limit', () => {
    expect(memoryPathProblem('a'.repeat(MEMORY_PATH_MAX_CHARS))).toBeNull();
    expect(memoryPathProblem('a'.repeat(MEMORY_PATH_MAX_CHARS + 1))).toMatch(/longer than/);
  });

  it('takes one segment as a folder', () => {
    expect(MEMORY_FOLDER_PATTERN.test('notes')).toBe(true);
    expect(MEMORY_FOLDER_PATTERN.test('notes/a')).toBe(false);
    expect(MEMORY_FOLDER_PATTERN.test('..')).toBe(false);
    expect(MEMORY_FOLDER_PATTERN.test('')).toBe(false);
  });
});
