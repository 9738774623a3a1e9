import { randomBytes } from 'node:crypto';
import { CredentialCipher, CredentialDecryptionError } from './credential-cipher';

const key = () => randomBytes(32).toString('base64');

describe('CredentialCipher', () => {
  it('round-trips a value and never stores it in clear', () => {
    const cipher = new CredentialCipher(key());
    const envelope = cipher.encrypt({ access_token: 'secret-token-123' });
    expect(envelope).not.toContain('secret-token-123');
    expect(cipher.decrypt(envelope)).toEqual({ access_token: 'secret-token-123' });
  });

  it('uses a fresh IV each time', () => {
    const cipher = new CredentialCipher(key());
    expect(cipher.encrypt({ a: 1 })).not.toEqual(cipher.encrypt({ a: 1 }));
  });

  it('decrypts with a rotated-out key that is still listed, and encrypts with the first', () => {
    const oldKey = key();
    const newKey = key();
    const before = new CredentialCipher(oldKey).encrypt({ t: 'old' });
    const rotated = new CredentialCipher(`${newKey},${oldKey}`);
    expect(rotated.decrypt(before)).toEqual({ t: 'old' });
    const after = rotated.encrypt({ t: 'new' });
    expect(new CredentialCipher(newKey).decrypt(after)).toEqual({ t: 'new' });
    expect(() => new CredentialCipher(oldKey).decrypt(after)).toThrow(CredentialDecryptionError);
  });

  it('refuses a tampered envelope', () => {
    const cipher = new CredentialCipher(key());
    const parts = cipher.encrypt({ t: 'x' }).split(':');
    parts[4] = Buffer.from('tampered').toString('base64');
    expect(() => cipher.decrypt(parts.join(':'))).toThrow(CredentialDecryptionError);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new CredentialCipher(Buffer.from('short').toString('base64'))).toThrow(/32 bytes/);
  });
});
