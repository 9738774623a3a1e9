import { Readable } from 'node:stream';
import { docxOf, pdfOf } from '../../../test/support/document-fixtures';
import { attachmentKind, extractText, readAtMost } from './attachment-text';

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
    expect(await extractText('pdf', pdfOf('Quarterly revenue grew'))).toContain('Quarterly revenue grew');
  });

  it('extracts the text of a DOCX', async () => {
    expect(await extractText('docx', await docxOf(['Minutes of the meeting']))).toBe(
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
