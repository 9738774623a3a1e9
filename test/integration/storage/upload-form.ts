import { PresignedUpload } from '@app/storage';
import { postUpload } from '../../support/uploads';

/** The upload as a browser or client makes it: every field, then `file` last, no service token. */
export function postForm(upload: PresignedUpload, body: Buffer, fileName = 'a.txt'): Promise<Response> {
  return postUpload(upload, body, fileName);
}
