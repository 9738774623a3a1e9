import { Readable, Transform } from 'node:stream';

/** The bytes stored for a file are not the ones the service recorded (count, or a changed object). */
export class StoredObjectMismatchError extends Error {
  constructor() {
    super('the stored object does not match the recorded file');
  }
}

/**
 * `source`, ending after exactly `size` bytes: a longer source is cut there and a shorter one fails the
 * stream. A response that declared `content-length: size` then either carries exactly those bytes or is
 * aborted; surplus bytes can never follow it on the connection as another response.
 */
export function exactLength(source: Readable, size: number): Readable {
  let seen = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const left = size - seen;
      seen += chunk.length;
      if (chunk.length <= left) return done(null, chunk);
      if (left > 0) this.push(chunk.subarray(0, left));
      source.unpipe(bounded);
      source.destroy();
      // The recorded bytes went out; the object is larger than recorded: fail rather than pretend.
      done(new StoredObjectMismatchError());
    },
    flush(done) {
      done(seen === size ? null : new StoredObjectMismatchError());
    },
  });
  source.on('error', (error) => bounded.destroy(error));
  return source.pipe(bounded);
}
