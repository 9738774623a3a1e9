import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { convert as htmlToText } from 'html-to-text';
import JSZip from 'jszip';
import { docxText, pdfText } from '@app/storage';

/** A document whose text cannot be read: counted in documents_failed with this reason. */
export class ExtractionError extends Error {}

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

export type DocumentFormat = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'html' | 'text';

const BY_EXTENSION: Record<string, DocumentFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  html: 'html',
  htm: 'html',
  txt: 'text',
  md: 'text',
  markdown: 'text',
  csv: 'text',
  tsv: 'text',
  json: 'text',
};

/** How a document is read, from its media type, else its name's extension; null when it is not supported. */
export function documentFormat(mimeType: string, name: string): DocumentFormat | null {
  const type = mimeType.toLowerCase().split(';')[0].trim();
  if (type === 'application/pdf') return 'pdf';
  if (type === DOCX) return 'docx';
  if (type === XLSX) return 'xlsx';
  if (type === PPTX) return 'pptx';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || type === 'application/json') return 'text';
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return extension ? (BY_EXTENSION[extension] ?? null) : null;
}

/**
 * The plain text of a document. Callers bound the bytes before this (DOCUMENT_MAX_BYTES); this bounds the
 * time: past `timeoutMs` the document fails (the parsers yield between pages, sheets and slides).
 */
export async function extractText(
  bytes: Buffer,
  mimeType: string,
  name: string,
  timeoutMs: number,
): Promise<string> {
  const format = documentFormat(mimeType, name);
  if (!format) throw new ExtractionError(`unsupported document type ${mimeType}`);
  const abort = new AbortController();
  const deadline = sleep(timeoutMs, undefined, { signal: abort.signal }).then(() => {
    throw new ExtractionError(`text extraction took longer than ${timeoutMs} ms`);
  });
  try {
    return await Promise.race([parse(format, bytes), deadline]);
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError(`unreadable ${format}: ${(error as Error).message}`);
  } finally {
    abort.abort();
    deadline.catch(() => undefined);
  }
}

async function parse(format: DocumentFormat, bytes: Buffer): Promise<string> {
  switch (format) {
    case 'pdf':
      return pdfText(bytes);
    case 'docx':
      return docxText(bytes);
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
  if (slides.length === 0) throw new ExtractionError('unreadable pptx: no slides');
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
