import { EndUserGrant, signEndUserToken, verifyEndUserToken } from './end-user-token';

const SECRET = 'test-secret-of-thirty-two-bytes-x';
const grant: EndUserGrant = {
  keyId: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11',
  orgId: '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c12',
  userId: 'alice',
  agentIds: ['0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c13'],
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
      [...fields.slice(0, 5), 2_000_000_000],
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
});
