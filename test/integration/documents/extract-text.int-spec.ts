import { loadSettings } from '@app/config';
import { ExtractionError, extractDocumentText, UntrustedParsing } from '@app/documents';
import { docxOf, MIME, pdfOf, pptxOf, xlsxOf } from '../../support/document-fixtures';

const parsing = new UntrustedParsing(loadSettings({}));

describe('extractDocumentText', () => {
  it('reads a PDF', async () => {
    expect(
      await extractDocumentText(pdfOf('Expense policy for travel'), MIME.pdf, 'a.pdf', 5000, parsing),
    ).toContain('Expense policy for travel');
  });

  it('reads a DOCX', async () => {
    const text = await extractDocumentText(
      await docxOf(['Onboarding guide', 'Day one: laptops']),
      MIME.docx,
      'a.docx',
      5000,
      parsing,
    );
    expect(text).toContain('Onboarding guide');
    expect(text).toContain('Day one: laptops');
  });

  it('reads an XLSX, a row a line', async () => {
    const text = await extractDocumentText(
      await xlsxOf([
        ['Item', 'Cost'],
        ['Servers', 1200],
      ]),
      MIME.xlsx,
      'a.xlsx',
      5000,
      parsing,
    );
    expect(text).toContain('Item\tCost');
    expect(text).toContain('Servers\t1200');
  });

  it('reads a PPTX, slides in order', async () => {
    const text = await extractDocumentText(
      await pptxOf(['Roadmap 2025', 'Launch in May']),
      MIME.pptx,
      'a.pptx',
      5000,
      parsing,
    );
    expect(text.indexOf('Roadmap 2025')).toBeLessThan(text.indexOf('Launch in May'));
  });

  it('reads HTML without markup, and CSV, Markdown and plain text as they are', async () => {
    const html = await extractDocumentText(
      Buffer.from('<h1>Security</h1><p>Use <b>MFA</b></p><script>x()</script>'),
      MIME.html,
      'a.html',
      5000,
      parsing,
    );
    expect(html).toMatch(/SECURITY|Security/);
    expect(html).toContain('Use MFA');
    expect(html).not.toContain('<b>');
    expect(await extractDocumentText(Buffer.from('a,b\n1,2'), MIME.csv, 'a.csv', 5000, parsing)).toBe(
      'a,b\n1,2',
    );
    expect(await extractDocumentText(Buffer.from('# Title'), MIME.markdown, 'a.md', 5000, parsing)).toBe(
      '# Title',
    );
    expect(
      await extractDocumentText(Buffer.from('plain'), 'application/octet-stream', 'notes.txt', 5000, parsing),
    ).toBe('plain');
  });

  it('fails a broken document and an unsupported type with a reason', async () => {
    await expect(
      extractDocumentText(Buffer.from('not a zip'), MIME.docx, 'a.docx', 5000, parsing),
    ).rejects.toBeInstanceOf(ExtractionError);
    await expect(
      extractDocumentText(Buffer.from('%PDF-1.4 garbage'), MIME.pdf, 'a.pdf', 5000, parsing),
    ).rejects.toThrow(/unreadable pdf/);
    await expect(extractDocumentText(Buffer.from('x'), 'image/png', 'a.png', 5000, parsing)).rejects.toThrow(
      /unsupported/,
    );
  });
});
