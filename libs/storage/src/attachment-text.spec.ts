import JSZip from 'jszip';
import { Readable } from 'node:stream';
import { attachmentKind, extractText, readAtMost } from './attachment-text';

/** A one-page PDF showing `text` (Helvetica), with a correct cross-reference table. */
function pdfWith(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** The smallest DOCX Word and mammoth accept: one paragraph. */
async function docxWith(text: string): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    'word/document.xml',
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      `<w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

describe('attachment text', () => {
  it.each([
    ['text/plain', 'a.txt', 'text'],
    ['text/markdown', 'a.md', 'text'],
    ['text/csv', 'a.csv', 'text'],
    ['application/json', 'a.json', 'text'],
    ['application/octet-stream', 'notes.md', 'text'],
    ['application/pdf', 'a.pdf', 'pdf'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'a.docx', 'docx'],
    ['image/png', 'a.png', 'image'],
    ['application/zip', 'a.zip', 'other'],
  ])('reads %s (%s) as %s', (mimetype, name, kind) => {
    expect(attachmentKind(mimetype, name)).toBe(kind);
  });

  it('extracts the text of a PDF', async () => {
    expect(await extractText('pdf', pdfWith('Quarterly revenue grew'))).toContain('Quarterly revenue grew');
  });

  it('extracts the text of a DOCX', async () => {
    expect(await extractText('docx', await docxWith('Minutes of the meeting'))).toBe(
      'Minutes of the meeting',
    );
  });

  it('decodes text files as UTF-8 and has no text for images', async () => {
    expect(await extractText('text', Buffer.from('{"ä": 1}'))).toBe('{"ä": 1}');
    expect(await extractText('image', Buffer.from([0x89, 0x50]))).toBeNull();
  });

  it('reads a stream up to a bound and says whether it got all of it', async () => {
    const long = await readAtMost(Readable.from([Buffer.alloc(600, 1), Buffer.alloc(600, 2)]), 1000);
    expect(long.bytes.length).toBe(1000);
    expect(long.complete).toBe(false);
    const short = await readAtMost(Readable.from([Buffer.from('abc')]), 1000);
    expect(short).toEqual({ bytes: Buffer.from('abc'), complete: true });
  });
});
