import { Scope } from '@app/persistence';

/**
 * The files attached to a user message, read for the model: declared here and provided by the app (the worker
 * hands it the conversation files), so the runtime knows no storage.
 */
export abstract class ModelAttachments {
  /** The attached documents' text, within the attachment text budget. */
  abstract attachmentTextForModel(scope: Scope, fileIds: string[]): Promise<string>;
  /** The attached images a model may take. */
  abstract imagesForModel(
    scope: Scope,
    fileIds: string[],
  ): Promise<{ name: string; mediaType: string; data: Buffer }[]>;
}
