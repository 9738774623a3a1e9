/** An upload permission as the gateway grants it (CONTRACTS §8): where to post, and the fields to post first. */
export interface UploadPermission {
  url: string;
  fields: Record<string, string>;
}

/**
 * The second step of an upload, as a browser or client makes it: every field of the permission, then `file`
 * last, to the storage host, without the service token.
 */
export function postUpload(
  permission: UploadPermission,
  body: Buffer | string,
  fileName = 'file',
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(permission.fields)) form.append(name, value);
  form.append('file', new Blob([body]), fileName);
  return fetch(permission.url, { method: 'POST', body: form });
}

/** The id of the file a permission is for (usable in file_ids once the upload is stored). */
export const uploadedFileId = (permission: UploadPermission): string =>
  permission.fields['x-amz-meta-file-id'];
