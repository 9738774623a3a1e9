import { hashSharePassword, verifySharePassword } from './share-link-password';

describe('share link passwords', () => {
  it('stores a salted scrypt hash, never the password, and verifies only the right one', async () => {
    const hash = await hashSharePassword('correct horse');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hash).not.toContain('correct horse');
    expect(await hashSharePassword('correct horse')).not.toBe(hash);
    expect(await verifySharePassword('correct horse', hash)).toBe(true);
    expect(await verifySharePassword('correct horsE', hash)).toBe(false);
    expect(await verifySharePassword('correct horse', 'plain')).toBe(false);
  });
});
