import { DOCX_TEXT, PDF_TEXT } from './attachment-text';
import type * as DocumentParsers from './document-parsers';
import { ParseFunction, ParseLimitError, UntrustedParsing } from './untrusted-parsing/untrusted-parsing';

/** A document whose text cannot be read: counted in documents_failed with this reason. */
export class ExtractionError extends Error {}

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/**
 * Named by its path, never imported here: the parsers (exceljs alone is ~13 MiB and 0.4 s to load) are loaded
 * by the parsing thread that runs one, not by every gateway and worker at start.
 */
const PARSE_OFFICE_DOCUMENT: ParseFunction = {
  module: require.resolve('./document-parsers'),
  name: 'parseOfficeDocument' satisfies keyof typeof DocumentParsers,
};

const BY_EXTENSION: Record<string, DocumentParsers.DocumentFormat> = {
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
function documentFormat(mimeType: string, name: string): DocumentParsers.DocumentFormat | null {
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
 * time and memory: the parsers run in a parsing thread (UntrustedParsing), and past `timeoutMs` the thread is
 * terminated and the document fails, so a crafted PDF, DOCX or workbook stalls neither the worker nor its runs.
 */
export async function extractDocumentText(
  bytes: Buffer,
  mimeType: string,
  name: string,
  timeoutMs: number,
  parsing: UntrustedParsing,
): Promise<string> {
  const format = documentFormat(mimeType, name);
  if (!format) throw new ExtractionError(`unsupported document type ${mimeType}`);
  try {
    if (format === 'pdf') return await parsing.run<string>(PDF_TEXT, [bytes], timeoutMs);
    if (format === 'docx') return await parsing.run<string>(DOCX_TEXT, [bytes], timeoutMs);
    return await parsing.run<string>(PARSE_OFFICE_DOCUMENT, [format, bytes], timeoutMs);
  } catch (error) {
    if (error instanceof ParseLimitError)
      throw new ExtractionError(`text extraction stopped: ${error.message}`);
    throw new ExtractionError(`unreadable ${format}: ${(error as Error).message}`);
  }
}
