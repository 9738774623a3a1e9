import { mcpToolName } from './mcp-tool-name';

describe('mcpToolName', () => {
  it('keeps `<server>__<tool>` when vendors accept it', () => {
    expect(mcpToolName('github', 'search_issues')).toBe('github__search_issues');
  });

  it('replaces characters vendors refuse and tells apart names that differ only there', () => {
    const dotted = mcpToolName('fs', 'read.file');
    expect(dotted).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
    expect(mcpToolName('fs', 'read_file')).toBe('fs__read_file');
    expect(mcpToolName('fs', 'read file')).not.toBe(dotted);
  });

  it('fits a long name in 64 characters, keeping long names distinct', () => {
    const a = mcpToolName('server', `${'x'.repeat(80)}a`);
    const b = mcpToolName('server', `${'x'.repeat(80)}b`);
    expect(a).toHaveLength(64);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
  });
});
