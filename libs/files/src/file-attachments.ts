import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { Settings } from '@app/config';
import {
  ConversationFileResponse,
  InvalidInputError,
  isRowId,
  ValidationIssue,
  valueErrorMessage,
} from '@app/contracts';
import {
  ConversationFileEntity,
  ConversationFileRepository,
  Scope,
  ShareLinkRepository,
} from '@app/persistence';
import {
  attachmentKind,
  EXTRACT_ATTACHMENT_TEXT,
  extractText,
  PARSE_MAX_BYTES,
  readAtMost,
  UntrustedParsing,
} from '@app/documents';
import { StorageDriver } from '@app/storage';
import { exactLength, StoredObjectMismatchError } from './exact-length';
import { toConversationFileResponse, toShareLinkResponse } from './file.mapper';

/** Where a file's bytes live: by organization and file id only (the name, a client's text, stays in the row). */
export const storageKeyOf = (orgId: string, fileId: string): string => `uploads/${orgId}/${fileId}`;

/** A message as far as its files are concerned (structurally a MessageEntity). */
interface MessageWithFiles {
  id: string;
  fileIds?: string[] | null;
}

/** An image attached to a message, for models that take images. */
interface ImageAttachment {
  name: string;
  mediaType: string;
  data: Buffer;
}

/** Images larger than this are not sent to a model. */
const IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Files attached to messages, for the chat use cases, data sources (drag-and-drop) and the agent runtime:
 * checks that ids name uploaded files of the caller, renders ConversationFile, reads attachments as text for
 * the model, and stores the files an agent writes.
 */
@Injectable()
export class FileAttachments {
  constructor(
    private readonly files: ConversationFileRepository,
    private readonly links: ShareLinkRepository,
    private readonly storage: StorageDriver,
    private readonly settings: Settings,
    private readonly parsing: UntrustedParsing,
  ) {}

  get publicBaseUrl(): string {
    return this.settings.publicBaseUrl ?? `http://127.0.0.1:${this.settings.port}`;
  }

  /**
   * The files `fileIds` name, in order, each uploaded and visible to `scope` (its organization, and its end
   * user when one is named); else 422 at the first bad index of `loc` (CONTRACTS §8). A file whose upload
   * the service has not seen yet is looked up on the storage host: its real size and type are recorded.
   */
  async requireUploaded(
    scope: Scope,
    fileIds: string[],
    loc: (string | number)[] = ['body', 'message', 'file_ids'],
  ): Promise<ConversationFileEntity[]> {
    // A message without files (most of them) asks nothing.
    if (fileIds.length === 0) return [];
    const found = new Map(
      (await this.files.findManyVisible(scope, fileIds.filter(isRowId))).map((f) => [f.id, f]),
    );
    const issues: ValidationIssue[] = [];
    const files: ConversationFileEntity[] = [];
    for (const [index, id] of fileIds.entries()) {
      const file = found.get(id);
      const uploaded = file ? await this.refresh(scope, file) : null;
      if (uploaded) {
        files.push(uploaded);
        continue;
      }
      issues.push({
        loc: [...loc, index],
        msg: valueErrorMessage(file ? 'the file has not been uploaded yet' : 'unknown file id'),
        type: 'value_error',
        input: id,
      });
    }
    if (issues.length > 0) throw new InvalidInputError(issues);
    return files;
  }

  /** One visible, uploaded file; null when missing, not the caller's or not uploaded yet. */
  async findUploaded(scope: Scope, id: string): Promise<ConversationFileEntity | null> {
    if (!isRowId(id)) return null;
    const file = await this.files.findVisible(scope, id);
    return file ? this.refresh(scope, file) : null;
  }

  /** `Message.files` of each message: the user's attached files, then those its agent wrote. */
  async filesByMessage(
    scope: Scope,
    messages: MessageWithFiles[],
  ): Promise<Map<string, ConversationFileResponse[]>> {
    const attached = [...new Set(messages.flatMap((message) => message.fileIds ?? []))];
    const files = await this.files.findForMessages(
      scope.orgId,
      attached,
      messages.map((message) => message.id),
    );
    const rendered = new Map<string, ConversationFileResponse>();
    for (const response of await this.toResponses(scope, files)) rendered.set(response.id, response);
    const byMessage = new Map<string, ConversationFileResponse[]>();
    for (const message of messages) {
      const own = (message.fileIds ?? []).map((id) => rendered.get(id));
      const written = files.filter((file) => file.origin === 'agent' && file.messageId === message.id);
      byMessage.set(message.id, [
        ...own.filter((file): file is ConversationFileResponse => file !== undefined),
        ...written.map((file) => rendered.get(file.id)!),
      ]);
    }
    return byMessage;
  }

  /** ConversationFile of each file of the scope's organization, with its share links and a fresh download address. */
  async toResponses(
    scope: Pick<Scope, 'orgId'>,
    files: ConversationFileEntity[],
  ): Promise<ConversationFileResponse[]> {
    if (files.length === 0) return [];
    const links = await this.links.listByFiles(
      scope,
      files.map((file) => file.id),
    );
    const now = new Date();
    return Promise.all(
      files.map(async (file) =>
        toConversationFileResponse(
          file,
          links
            .filter((link) => link.fileId === file.id)
            .map((link) => toShareLinkResponse(link, this.publicBaseUrl, now)),
          await this.storage.downloadUrl(file.storageKey, {
            expiresInSeconds: this.settings.downloadUrlTtlSeconds,
            filename: file.name,
            contentType: file.mimetype,
            size: file.size,
          }),
        ),
      ),
    );
  }

  /**
   * The attached files as text for the model, within ATTACHMENT_TEXT_MAX_CHARS for all of them together:
   * plain text, Markdown, CSV, JSON, PDF and DOCX are read; other files are named with their type and size.
   * Empty when `fileIds` is.
   */
  async attachmentTextForModel(scope: Scope, fileIds: string[]): Promise<string> {
    const files = await this.visibleInOrder(scope, fileIds);
    let budget = this.settings.attachmentTextMaxChars;
    const sections: string[] = [];
    for (const file of files) {
      const header = `Attached file "${file.name}" (${file.mimetype}, ${file.size} bytes)`;
      const { text, note } = await this.readText(file, budget);
      if (text === null) {
        sections.push(`${header}: ${note}`);
        continue;
      }
      const shown = text.length > budget ? text.slice(0, budget) : text;
      budget -= shown.length;
      const cut = shown.length < text.length || note ? '\n[… truncated]' : '';
      sections.push(`${header}:\n${shown}${cut}`);
    }
    return sections.join('\n\n');
  }

  /** The attached images (each at most 5 MiB), for models that accept images. */
  async imagesForModel(scope: Scope, fileIds: string[]): Promise<ImageAttachment[]> {
    const images: ImageAttachment[] = [];
    for (const file of await this.visibleInOrder(scope, fileIds)) {
      if (attachmentKind(file.mimetype, file.name) !== 'image' || file.size > IMAGE_MAX_BYTES) continue;
      const stream = await this.storage.read(file.storageKey);
      if (!stream) continue;
      const { bytes } = await readAtMost(stream, IMAGE_MAX_BYTES);
      images.push({ name: file.name, mediaType: file.mimetype, data: bytes });
    }
    return images;
  }

  /**
   * The file's bytes for a download, exactly its recorded size: refused (StoredObjectMismatchError) when the
   * stored object's size differs, cut or failed mid-way should it change while streaming. Null when missing.
   */
  async openRecorded(file: ConversationFileEntity): Promise<Readable | null> {
    const stored = await this.storage.head(file.storageKey);
    if (!stored) return null;
    if (stored.size !== file.size) throw new StoredObjectMismatchError();
    const body = await this.storage.read(file.storageKey);
    return body ? exactLength(body, file.size) : null;
  }

  /**
   * File completion: the first time the service sees a pending file's bytes, it seals them (no permission can
   * change them afterwards) and records their size and type. Null while its bytes have not arrived.
   */
  private async refresh(scope: Scope, file: ConversationFileEntity): Promise<ConversationFileEntity | null> {
    if (file.status === 'uploaded') return file;
    const sealed = await this.storage.seal(file.storageKey);
    if (!sealed) return null;
    return this.files.markUploaded(scope, file.id, {
      storageKey: sealed.key,
      size: sealed.size,
      mimetype: sealed.contentType,
    });
  }

  private async visibleInOrder(scope: Scope, fileIds: string[]): Promise<ConversationFileEntity[]> {
    const files = await this.files.findManyVisible(scope, fileIds.filter(isRowId));
    const byId = new Map(files.filter((file) => file.status === 'uploaded').map((file) => [file.id, file]));
    return fileIds.map((id) => byId.get(id)).filter((file): file is ConversationFileEntity => !!file);
  }

  private async readText(
    file: ConversationFileEntity,
    budget: number,
  ): Promise<{ text: string | null; note?: string }> {
    const kind = attachmentKind(file.mimetype, file.name);
    if (kind === 'image' || kind === 'other') return { text: null, note: 'not readable as text' };
    if (budget <= 0) return { text: null, note: 'left out, the attachment text budget is spent' };
    if (kind !== 'text' && file.size > PARSE_MAX_BYTES) return { text: null, note: 'too large to read' };
    const stream = await this.storage.read(file.storageKey);
    if (!stream) return { text: null, note: 'missing from storage' };
    // Text: four bytes a character at most is enough for the budget. Documents are parsed whole.
    const { bytes, complete } = await readAtMost(stream, kind === 'text' ? budget * 4 : PARSE_MAX_BYTES);
    try {
      // PDF and DOCX parsers are CPU-heavy on crafted files: off the event loop, with a deadline.
      const text =
        kind === 'text'
          ? await extractText(kind, bytes)
          : await this.parsing.run<string | null>(
              EXTRACT_ATTACHMENT_TEXT,
              [kind, bytes],
              this.settings.parseTimeoutMs,
            );
      return { text, note: complete ? undefined : 'partial' };
    } catch {
      return { text: null, note: 'could not be read' };
    }
  }
}
