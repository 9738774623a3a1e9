import { createHmac } from 'node:crypto';
import { END_USER_TOKEN_MAX_CHARS, parseServiceTokenHeader } from './api-key-secret';
import {
  decodeCanonicalBase64url,
  EndUserGrant,
  endUserTokenIdentity,
  signEndUserToken,
  verifyEndUserToken,
} from './end-user-token';

const SECRET = 'test-secret-of-thirty-two-bytes-x';
const grant: EndUserGrant = {
  keyId: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11',
  orgId: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c12',
  userId: 'alice',
  agentIds: ['0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c13'],
  memoryNamespaces: ['alice-notes', 'team'],
  expiresAt: new Date('2030-01-01T00:00:00Z'),
};
const now = new Date('2029-12-31T23:00:00Z');

describe('end-user tokens', () => {
  it('verifies what it signed, with every field of the grant', () => {
    const token = signEndUserToken(SECRET, grant);
    expect(token).toMatch(/^eut_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyEndUserToken(SECRET, token, now)).toEqual({ ok: true, grant });
  });

  it('keeps a grant without agent limits as null', () => {
    const token = signEndUserToken(SECRET, { ...grant, agentIds: null });
    expect(verifyEndUserToken(SECRET, token, now)).toMatchObject({ ok: true, grant: { agentIds: null } });
  });

  it('refuses a token past its expiry', () => {
    const token = signEndUserToken(SECRET, grant);
    expect(verifyEndUserToken(SECRET, token, grant.expiresAt)).toEqual({
      ok: false,
      reason: 'Expired end-user token',
    });
  });

  it('refuses a token signed with another secret', () => {
    const token = signEndUserToken('another-secret', grant);
    expect(verifyEndUserToken(SECRET, token, now)).toEqual({ ok: false, reason: 'Invalid end-user token' });
  });

  it('refuses a payload changed after signing (another user, a later expiry)', () => {
    const token = signEndUserToken(SECRET, grant);
    const [payload, signature] = token.slice('eut_'.length).split('.');
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    for (const changed of [
      [...fields.slice(0, 3), 'mallory', ...fields.slice(4)],
      [...fields.slice(0, 5), 2_000_000_000, ...fields.slice(6)],
      [...fields.slice(0, 6), ['bob-notes']],
    ]) {
      const forged = `eut_${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
      expect(verifyEndUserToken(SECRET, forged, now)).toEqual({
        ok: false,
        reason: 'Invalid end-user token',
      });
    }
  });

  it.each([
    ['no prefix', (token: string) => token.slice(4)],
    ['no signature', (token: string) => token.split('.')[0]],
    ['a third part', (token: string) => `${token}.x`],
    ['a truncated signature', (token: string) => token.slice(0, -2)],
  ])('refuses a token with %s', (_name, mangle) => {
    const token = mangle(signEndUserToken(SECRET, grant));
    expect(verifyEndUserToken(SECRET, token, now)).toEqual({ ok: false, reason: 'Invalid end-user token' });
  });

  it.each([
    ['a character outside the alphabet', (token: string) => `${token}~`],
    ['padding', (token: string) => `${token}=`],
    ['three tildes', (token: string) => `${token}~~~`],
    ['the other alphabet', (token: string) => token.replace(/-/g, '+').replace(/_/g, '/')],
    ['padding on the payload', (token: string) => token.replace('.', '=.')],
  ])('refuses another spelling of a valid token: %s', (_name, respell) => {
    // A grant whose encodings hold both - and _, so "the other alphabet" changes the string.
    let token = signEndUserToken(SECRET, grant);
    for (let user = 0; !/[-_]/.test(token); user++) {
      token = signEndUserToken(SECRET, { ...grant, userId: `alice-${user}` });
    }
    const respelled = respell(token);
    expect(respelled).not.toBe(token);
    expect(verifyEndUserToken(SECRET, respelled, now)).toEqual({
      ok: false,
      reason: 'Invalid end-user token',
    });
  });

  it('refuses a signature whose last character differs only in the bits base64 ignores', () => {
    const token = signEndUserToken(SECRET, grant);
    const signature = token.slice(token.indexOf('.') + 1);
    // 32 bytes are 43 characters: the last one carries 4 bits of the digest and 2 unused ones.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    const sameBytes = [1, 2, 3].map((low) => `${token.slice(0, -1)}${alphabet[(last & ~3) | low]}`);
    for (const variant of sameBytes) {
      expect(Buffer.from(variant.split('.')[1], 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
      expect(verifyEndUserToken(SECRET, variant, now)).toEqual({
        ok: false,
        reason: 'Invalid end-user token',
      });
    }
  });

  it('reads a version-1 token (minted before memory namespaces) as a grant of none', () => {
    const payload = [1, grant.keyId, grant.orgId, 'alice', null, grant.expiresAt.getTime() / 1000];
    const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const signature = createHmac('sha256', SECRET).update(`eut_${encoded}`).digest('base64url');
    expect(verifyEndUserToken(SECRET, `eut_${encoded}.${signature}`, now)).toMatchObject({
      ok: true,
      grant: { userId: 'alice', agentIds: null, memoryNamespaces: [] },
    });
  });

  it('names every spelling of one token by the same identity, and two tokens by two', () => {
    const token = signEndUserToken(SECRET, grant);
    const other = signEndUserToken(SECRET, { ...grant, userId: 'bob' });
    const identity = endUserTokenIdentity(token);
    expect(identity).toBe(token.slice('eut_'.length, token.indexOf('.')));
    for (const respelled of [`${token}~`, `${token}=`, token.replace('.', '=.'), token.replace(/.$/, 'A')]) {
      expect(endUserTokenIdentity(respelled)).toBe(identity);
    }
    expect(endUserTokenIdentity(other)).not.toBe(identity);
    expect(endUserTokenIdentity('sk-svc-abc')).toBeNull();
  });
});

it('fits the longest grant minting allows in a header the guard accepts', () => {
  const escaped = (chars: number) => '\u0001'.repeat(chars);
  const token = signEndUserToken(SECRET, {
    ...grant,
    userId: escaped(256),
    agentIds: Array.from({ length: 10 }, () => grant.keyId),
    memoryNamespaces: Array.from({ length: 5 }, () => escaped(128)),
  });
  expect(token.length).toBeLessThanOrEqual(END_USER_TOKEN_MAX_CHARS);
  expect(parseServiceTokenHeader(`Bearer ${token}`)).toEqual({ ok: true, secret: token });
});

describe('decodeCanonicalBase64url', () => {
  it('decodes the one unpadded base64url spelling of some bytes', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);
    expect(decodeCanonicalBase64url(bytes.toString('base64url'))).toEqual(bytes);
    expect(decodeCanonicalBase64url('')).toEqual(Buffer.alloc(0));
  });

  it.each([
    ['padding', '-_-_AQ=='],
    ['the standard alphabet', '+/+/AQ'],
    ['a character Node would skip', '-_-_~AQ'],
    ['a space', '-_-_ AQ'],
    ['unused low bits set', '-_-_AR'],
    ['a lone last character', '-_-_A'],
  ])('refuses %s', (_name, text) => {
    expect(decodeCanonicalBase64url(text)).toBeNull();
  });
});
