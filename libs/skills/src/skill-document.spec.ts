import { InvalidInputError } from '@app/contracts';
import { parseSkillDocument } from './skill-document';

const doc = (frontmatter: string, body = '# Steps\nDo it.') => `---\n${frontmatter}\n---\n${body}`;

describe('parseSkillDocument', () => {
  it('reads the frontmatter fields and the body', () => {
    const parsed = parseSkillDocument(
      doc(
        'name: pdf-forms\ndescription: Fill PDF forms\nlicense: MIT\ncompatibility: any\nmetadata:\n  team: docs\nallowed-tools: clock web',
      ),
      ['body', 'content'],
    );
    expect(parsed.frontmatter).toEqual({
      name: 'pdf-forms',
      description: 'Fill PDF forms',
      license: 'MIT',
      compatibility: 'any',
      metadata: { team: 'docs' },
      allowed_tools: ['clock', 'web'],
    });
    expect(parsed.body).toBe('# Steps\nDo it.');
  });

  it('accepts allowed-tools as a YAML list', () => {
    const parsed = parseSkillDocument(doc('name: a\ndescription: b\nallowed-tools: [clock, "mcp:github"]'), [
      'body',
      'content',
    ]);
    expect(parsed.frontmatter.allowed_tools).toEqual(['clock', 'mcp:github']);
  });

  const issuesOf = (text: string) => {
    try {
      parseSkillDocument(text, ['body', 'content']);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      return (error as InvalidInputError).issues;
    }
    throw new Error('expected a validation error');
  };

  it('requires name and description', () => {
    const issues = issuesOf(doc('license: MIT'));
    expect(issues.map((issue) => [issue.loc, issue.type])).toEqual([
      [['body', 'content', 'frontmatter', 'name'], 'missing'],
      [['body', 'content', 'frontmatter', 'description'], 'missing'],
    ]);
  });

  it('refuses a name outside ^[a-z0-9-]{1,64}$', () => {
    expect(issuesOf(doc('name: Bad_Name\ndescription: x'))[0]).toMatchObject({
      loc: ['body', 'content', 'frontmatter', 'name'],
      type: 'string_pattern_mismatch',
    });
    expect(issuesOf(doc(`name: ${'a'.repeat(65)}\ndescription: x`))[0].type).toBe('string_pattern_mismatch');
  });

  it('refuses a document without frontmatter, or with broken YAML', () => {
    expect(issuesOf('# just markdown')[0]).toMatchObject({ loc: ['body', 'content'], type: 'value_error' });
    expect(issuesOf(doc('name: [unclosed'))[0].msg).toMatch(/invalid YAML/);
  });
});
