import {
  credentialHeader,
  generateKeySecret,
  hashesEqual,
  hashKeySecret,
  KEY_PREFIX,
  legacyKeyProblem,
  parseServiceTokenHeader,
} from './api-key-secret';

describe('parseServiceTokenHeader', () => {
  it('accepts the key as it is', () => {
    expect(parseServiceTokenHeader('sk-svc-abc')).toEqual({ ok: true, secret: 'sk-svc-abc' });
  });

  it('accepts one Bearer prefix', () => {
    expect(parseServiceTokenHeader('Bearer sk-svc-abc')).toEqual({ ok: true, secret: 'sk-svc-abc' });
  });

  it('accepts a legacy key without the prefix', () => {
    expect(parseServiceTokenHeader('legacy-secret-1')).toEqual({ ok: true, secret: 'legacy-secret-1' });
  });

  it.each([
    ['missing', undefined, 'Missing x-service-token or Authorization: Bearer header'],
    ['empty', '', 'Malformed x-service-token header'],
    ['only Bearer', 'Bearer ', 'Malformed x-service-token header'],
    ['two Bearer prefixes', 'Bearer Bearer sk-svc-abc', 'Malformed x-service-token header'],
    ['inner whitespace', 'sk-svc-a bc', 'Malformed x-service-token header'],
    ['a tab after Bearer', 'Bearer\tsk-svc-abc', 'Malformed x-service-token header'],
    ['two spaces after Bearer', 'Bearer  sk-svc-abc', 'Malformed x-service-token header'],
    ['a lower-case bearer', 'bearer sk-svc-abc', 'Malformed x-service-token header'],
    ['a key longer than 512 characters', 'a'.repeat(513), 'Malformed x-service-token header'],
    ['a character no key has', 'sk-svc-abc;', 'Malformed x-service-token header'],
    ['repeated header', ['a', 'b'], 'Malformed x-service-token header'],
  ])('rejects a %s header', (_name, header, reason) => {
    expect(parseServiceTokenHeader(header as string | string[] | undefined)).toEqual({ ok: false, reason });
  });
});

describe('credentialHeader', () => {
  it('reads x-service-token first, then an Authorization of the Bearer scheme only', () => {
    expect(credentialHeader({ 'x-service-token': 'a', authorization: 'Bearer b' })).toBe('a');
    expect(credentialHeader({ authorization: 'Bearer b' })).toBe('Bearer b');
    expect(credentialHeader({ authorization: 'Basic YWRtaW46eA==' })).toBeUndefined();
    expect(credentialHeader({})).toBeUndefined();
  });
});

describe('legacyKeyProblem', () => {
  it('accepts a 20-character b64token', () => {
    expect(legacyKeyProblem('abcdefghij0123456789')).toBeNull();
    expect(legacyKeyProblem('Zm9vYmFyYmF6cXV4cXV1eA==')).toBeNull();
  });

  it.each([
    ['one character', 'x'],
    ['19 characters', 'a'.repeat(19)],
    ['513 characters', 'a'.repeat(513)],
    ['whitespace', 'abcdefghij 0123456789'],
    ['a tab', 'abcdefghij\t0123456789'],
    ['a character outside the alphabet', 'abcdefghij0123456789!'],
    ['the sk-svc- prefix', 'sk-svc-abcdefghij0123456789'],
    ['the eut_ prefix of end-user tokens', 'eut_abcdefghij0123456789'],
  ])('refuses %s', (_name, secret) => {
    expect(legacyKeyProblem(secret)).toEqual(expect.any(String));
  });
});

describe('key secrets', () => {
  it('makes distinct prefixed secrets', () => {
    const a = generateKeySecret();
    const b = generateKeySecret();
    expect(a.startsWith(KEY_PREFIX)).toBe(true);
    expect(a).not.toEqual(b);
    expect(a.length).toBeGreaterThan(40);
  });

  it('hashes to 64 hex characters and compares hashes', () => {
    const hash = hashKeySecret('sk-svc-abc');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hash, hashKeySecret('sk-svc-abc'))).toBe(true);
    expect(hashesEqual(hash, hashKeySecret('sk-svc-abd'))).toBe(false);
  });
});
