import ExcelJS from 'exceljs';
import { convert as htmlToText } from 'html-to-text';
import JSZip from 'jszip';

/*
 * The parsers of the document formats this lib reads itself. A parsing thread loads this module alone, so it
 * imports only the parsers.
 */

/** The formats a document is read as (document-text.ts picks one from its media type or name). */
export type DocumentFormat = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'html' | 'text';

/** The text of an XLSX, PPTX, HTML or text document: what a parsing thread runs (PARSE_OFFICE_DOCUMENT). */
export async function parseOfficeDocument(format: DocumentFormat, bytes: Buffer): Promise<string> {
  switch (format) {
    case 'pdf':
    case 'docx':
      throw new Error(`${format} is read by the attachment parsers (attachment-text.ts)`);
    case 'xlsx':
      return xlsxText(bytes);
    case 'pptx':
      return pptxText(bytes);
    case 'html':
      return htmlToText(bytes.toString('utf8'), {
        wordwrap: false,
        selectors: [{ selector: 'img', format: 'skip' }],
      });
    case 'text':
      return bytes.toString('utf8').replace(/^\uFEFF/, '');
  }
}

async function xlsxText(bytes: Buffer): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheets: string[] = [];
  workbook.eachSheet((sheet) => {
    const rows: string[] = [`# ${sheet.name}`];
    sheet.eachRow((row) => {
      const cells = (row.values as unknown[]).slice(1).map((value) => cellText(value));
      rows.push(cells.join('\t'));
    });
    sheets.push(rows.join('\n'));
  });
  return sheets.join('\n\n');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return String(value);
  const cell = value as { text?: unknown; result?: unknown; richText?: { text: string }[] };
  if (cell.richText) return cell.richText.map((part) => part.text).join('');
  if (cell.text !== undefined) return String(cell.text);
  if (cell.result !== undefined) return String(cell.result);
  return '';
}

async function pptxText(bytes: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(bytes);
  const slides = Object.keys(zip.files)
    .map((path) => ({ path, number: Number(/^ppt\/slides\/slide(\d+)\.xml$/.exec(path)?.[1]) }))
    .filter((slide) => Number.isInteger(slide.number))
    .sort((a, b) => a.number - b.number);
  if (slides.length === 0) throw new Error('no slides');
  const texts: string[] = [];
  for (const slide of slides) {
    const xml = await (zip.file(slide.path) as JSZip.JSZipObject).async('string');
    const paragraphs = xml
      .split(/<\/a:p>/)
      .map((paragraph) =>
        [...paragraph.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((match) => decodeXml(match[1])).join(''),
      );
    texts.push(paragraphs.filter(Boolean).join('\n'));
  }
  return texts.join('\n\n');
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&');
}
