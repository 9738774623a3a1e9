import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/**
 * Objects on local disk: the bytes at `<dir>/<key>`, their content type and metadata beside them in
 * `<key>.meta.json`. Writes go to a temporary file first and are renamed into place, so a reader never sees
 * half an object. Used by the local driver (gateway and worker) and by the embedded storage host.
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

  /** Moves a finished temporary file into place with its sidecar. */
  async commit(tempPath: string, key: string, object: Sidecar): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const sidecarTemp = await this.tempPath();
    await writeFile(sidecarTemp, JSON.stringify(object));
    await rename(tempPath, path);
    await rename(sidecarTemp, `${path}.meta.json`);
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

  async read(key: string): Promise<Readable | null> {
    if (!(await this.head(key))) return null;
    return createReadStream(this.pathOf(key));
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(`${path}.meta.json`, { force: true });
    await rm(path, { force: true });
  }
}
