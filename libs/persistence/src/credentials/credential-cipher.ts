import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Credentials could not be decrypted with any configured key (a key was removed, or the row was altered). */
export class CredentialDecryptionError extends Error {}

interface Key {
  id: string;
  secret: Buffer;
}

const VERSION = 'v1';

/**
 * AES-256-GCM for connection credentials at rest. The envelope is `v1:<key id>:<iv>:<tag>:<ciphertext>`
 * (base64 parts); the key id (first 8 hex of the key's SHA-256) picks the decryption key, so keys rotate:
 * the first configured key encrypts, every configured key decrypts.
 */
export class CredentialCipher {
  private readonly keys: Key[];

  /** `keys`: comma list of base64 32-byte keys (CREDENTIALS_KEYS). */
  constructor(keys: string) {
    this.keys = keys
      .split(',')
      .map((text) => text.trim())
      .filter(Boolean)
      .map((text) => {
        const secret = Buffer.from(text, 'base64');
        if (secret.length !== 32) throw new Error('CREDENTIALS_KEYS: every key must be 32 bytes, base64');
        return { id: createHash('sha256').update(secret).digest('hex').slice(0, 8), secret };
      });
    if (this.keys.length === 0) throw new Error('CREDENTIALS_KEYS: at least one key is needed');
  }

  /** The id of the key that encrypts: envelopes made now start with `v1:<this id>:`. */
  get encryptionKeyId(): string {
    return this.keys[0].id;
  }

  /** The prefix of every envelope one of this cipher's keys made with its first key. */
  get envelopePrefix(): string {
    return `${VERSION}:${this.encryptionKeyId}:`;
  }

  encrypt(value: unknown): string {
    const key = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return [
      VERSION,
      key.id,
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      body.toString('base64'),
    ].join(':');
  }

  decrypt<T>(envelope: string): T {
    const [version, keyId, iv, tag, body] = envelope.split(':');
    const key = this.keys.find((candidate) => candidate.id === keyId);
    if (version !== VERSION || !key || !iv || !tag || body === undefined) {
      throw new CredentialDecryptionError('credentials were encrypted with a key that is not configured');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.secret, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString(
        'utf8',
      );
      return JSON.parse(text) as T;
    } catch {
      throw new CredentialDecryptionError('credentials failed their integrity check');
    }
  }
}
