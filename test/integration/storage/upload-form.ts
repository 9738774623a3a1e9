import { PresignedUpload } from '@app/storage';

/** The upload as a browser or client makes it: every field, then `file` last, no service token. */
export function postForm(upload: PresignedUpload, body: Buffer, fileName = 'a.txt'): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  form.append('file', new Blob([body]), fileName);
  return fetch(upload.url, { method: 'POST', body: form });
}
