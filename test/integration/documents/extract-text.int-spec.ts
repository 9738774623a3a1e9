import { loadSettings } from '@app/config';
import { ExtractionError, extractDocumentText, UntrustedParsing } from '@app/documents';
import { docxOf, MIME, pdfOf, pptxOf, xlsxOf } from '../../support/document-fixtures';

const parsing = new UntrustedParsing(loadSettings({}));

/** The text of a document, at most 5,000 characters, parsed as the service parses untrusted files. */
const extract = (body: Buffer, mimetype: string, name: string) =>
  extractDocumentText(body, mimetype, name, 5000, parsing);

describe('extractDocumentText', () => {
  it('reads a PDF', async () => {
    expect(await extract(pdfOf('Expense policy for travel'), MIME.pdf, 'a.pdf')).toContain(
      'Expense policy for travel',
    );
  });

  it('reads a DOCX', async () => {
    const text = await extract(await docxOf(['Onboarding guide', 'Day one: laptops']), MIME.docx, 'a.docx');
    expect(text).toContain('Onboarding guide');
    expect(text).toContain('Day one: laptops');
  });

  it('reads an XLSX, a row a line', async () => {
    const text = await extract(
      await xlsxOf([
        ['Item', 'Cost'],
        ['Servers', 1200],
      ]),
      MIME.xlsx,
      'a.xlsx',
    );
    expect(text).toContain('Item\tCost');
    expect(text).toContain('Servers\t1200');
  });

  it('reads a PPTX, slides in order', async () => {
    const text = await extract(await pptxOf(['Roadmap 2025', 'Launch in May']), MIME.pptx, 'a.pptx');
    expect(text.indexOf('Roadmap 2025')).toBeLessThan(text.indexOf('Launch in May'));
  });

  it('reads HTML without markup, and CSV, Markdown and plain text as they are', async () => {
    const html = await extract(
      Buffer.from('<h1>Security</h1><p>Use <b>MFA</b></p><script>x()</script>'),
      MIME.html,
      'a.html',
    );
    expect(html).toMatch(/SECURITY|Security/);
    expect(html).toContain('Use MFA');
    expect(html).not.toContain('<b>');
    expect(await extract(Buffer.from('a,b\n1,2'), MIME.csv, 'a.csv')).toBe('a,b\n1,2');
    expect(await extract(Buffer.from('# Title'), MIME.markdown, 'a.md')).toBe('# Title');
    expect(await extract(Buffer.from('plain'), 'application/octet-stream', 'notes.txt')).toBe('plain');
  });

  it('fails a broken document and an unsupported type with a reason', async () => {
    await expect(extract(Buffer.from('not a zip'), MIME.docx, 'a.docx')).rejects.toBeInstanceOf(
      ExtractionError,
    );
    await expect(extract(Buffer.from('%PDF-1.4 garbage'), MIME.pdf, 'a.pdf')).rejects.toThrow(
      /unreadable pdf/,
    );
    await expect(extract(Buffer.from('x'), 'image/png', 'a.png')).rejects.toThrow(/unsupported/);
  });
});
