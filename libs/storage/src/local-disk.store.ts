import { createReadStream } from 'node:fs';
import { access, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { StoredObject } from './storage-driver';

/** Segments of letters, digits, `.`, `_`, `-`, each starting with a letter or digit: no `..`, no absolute path. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export const isValidKey = (key: string): boolean => KEY.test(key) && key.length <= 512;

interface Sidecar extends StoredObject {
  metadata: Record<string, string>;
}

/** An object is already stored at the key: objects are written once and never replaced. */
export class ObjectExistsError extends Error {
  constructor(key: string) {
    super(`an object is already stored at ${JSON.stringify(key)}`);
  }
}

/**
 * Objects on local disk: the bytes at `<dir>/<key>`, their content type and metadata beside them in
 * `<key>.meta.json`. Writes go to a temporary file first and are linked into place, so a reader never sees
 * half an object; a key is written once (a second writer gets ObjectExistsError, even when both race), so
 * recorded sizes stay true for the object's life. Used by the local driver (gateway and worker) and by the
 * embedded storage host.
 */
export class LocalDiskStore {
  readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  private pathOf(key: string): string {
    if (!isValidKey(key)) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
    return join(this.root, key);
  }

  /** A fresh temporary path on the same disk as the objects (rename needs one file system). */
  async tempPath(): Promise<string> {
    const dir = join(this.root, '.tmp');
    await mkdir(dir, { recursive: true });
    return join(dir, uuidv7());
  }

  /**
   * Moves a finished temporary file into place with its sidecar, unless the key already has an object.
   * link(2) refuses an existing name atomically, so of two writers racing for one key exactly one wins.
   */
  async commit(tempPath: string, key: string, object: Sidecar): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    try {
      await link(tempPath, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ObjectExistsError(key);
      throw error;
    } finally {
      await rm(tempPath, { force: true });
    }
    // The sidecar appears last: until it does, head() says nothing is stored.
    const sidecarTemp = await this.tempPath();
    await writeFile(sidecarTemp, JSON.stringify(object));
    await rename(sidecarTemp, `${path}.meta.json`);
  }

  /** True when bytes are stored at the key (even if their sidecar is not written yet). */
  async exists(key: string): Promise<boolean> {
    try {
      await access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async write(key: string, body: Buffer, contentType: string, metadata: Record<string, string> = {}) {
    const temp = await this.tempPath();
    await writeFile(temp, body);
    await this.commit(temp, key, { size: body.length, contentType, metadata });
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const sidecar = JSON.parse(await readFile(`${this.pathOf(key)}.meta.json`, 'utf8')) as Sidecar;
      return { size: sidecar.size, contentType: sidecar.contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** The object's bytes, never more than its recorded size. */
  async read(key: string): Promise<Readable | null> {
    const object = await this.head(key);
    if (!object) return null;
    // An empty object: createReadStream's `end` is inclusive, so -1 would read it all.
    if (object.size === 0) return Readable.from([]);
    return createReadStream(this.pathOf(key), { start: 0, end: object.size - 1 });
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(`${path}.meta.json`, { force: true });
    await rm(path, { force: true });
  }
}
