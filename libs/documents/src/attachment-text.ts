import { Readable } from 'node:stream';
import type { ParseFunction } from './untrusted-parsing/untrusted-parsing';

/** Largest document parsed for the model (PDF, DOCX): parsing is bounded before it starts. */
export const PARSE_MAX_BYTES = 10 * 1024 * 1024;

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const TEXT_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/csv',
]);
const TEXT_EXTENSIONS = /\.(txt|md|markdown|csv|tsv|json|jsonl|ndjson|ya?ml|xml|log)$/i;

type AttachmentKind = 'text' | 'pdf' | 'docx' | 'image' | 'other';

/** How a file is read for the model, from its media type (or its name when the type says nothing). */
export function attachmentKind(mimetype: string, name: string): AttachmentKind {
  const type = mimetype.toLowerCase().split(';')[0].trim();
  if (type.startsWith('text/') || TEXT_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml')) {
    return 'text';
  }
  if (type === 'application/pdf') return 'pdf';
  if (type === DOCX) return 'docx';
  if (type.startsWith('image/')) return 'image';
  if (type === 'application/octet-stream' || type === '') {
    if (TEXT_EXTENSIONS.test(name)) return 'text';
    if (/\.pdf$/i.test(name)) return 'pdf';
    if (/\.docx$/i.test(name)) return 'docx';
  }
  return 'other';
}

/** Reads at most `maxBytes` of a stream; `complete` says whether that was all of it. */
export async function readAtMost(
  stream: Readable,
  maxBytes: number,
): Promise<{ bytes: Buffer; complete: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    chunks.push(buffer);
    total += buffer.length;
    if (total > maxBytes) {
      stream.destroy();
      return { bytes: Buffer.concat(chunks).subarray(0, maxBytes), complete: false };
    }
  }
  return { bytes: Buffer.concat(chunks), complete: true };
}

/** The text of a PDF, page by page (pdf.js, without a worker thread). */
export async function pdfText(bytes: Buffer): Promise<string> {
  // Loaded on first use: only processes that read attachments pay for pdf.js.
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.js');
  const document = await pdfjs.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  }).promise;
  try {
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      pages.push(
        content.items
          .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
          .join('')
          .trim(),
      );
    }
    return pages.join('\n\n');
  } finally {
    await document.destroy();
  }
}

/** The raw text of a DOCX (mammoth). */
export async function docxText(bytes: Buffer): Promise<string> {
  const mammoth = await import('mammoth');
  return (await mammoth.extractRawText({ buffer: bytes })).value.trim();
}

/**
 * The text of a document, or null when its kind has none. `bytes` may be the start of a text file (then the
 * text is its start); a PDF or DOCX must be whole. FileAttachments runs it in a parsing thread
 * (EXTRACT_ATTACHMENT_TEXT).
 */
export async function extractText(kind: AttachmentKind, bytes: Buffer): Promise<string | null> {
  switch (kind) {
    case 'text':
      // A cut in the middle of a UTF-8 sequence decodes to one replacement character at the end: harmless.
      return bytes.toString('utf8');
    case 'pdf':
      return pdfText(bytes);
    case 'docx':
      return docxText(bytes);
    default:
      return null;
  }
}

/** What a parsing thread runs: this module imports no more than the parsers it needs. */
export const EXTRACT_ATTACHMENT_TEXT: ParseFunction = { module: __filename, name: extractText.name };
export const PDF_TEXT: ParseFunction = { module: __filename, name: pdfText.name };
export const DOCX_TEXT: ParseFunction = { module: __filename, name: docxText.name };
