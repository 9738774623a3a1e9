import { createHash } from 'node:crypto';
import { endUserHash } from './end-user-hash';

describe('endUserHash', () => {
  const org = '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c11';

  it('is the hex SHA-256 of the versioned label, the organization id and the user id, one per line', () => {
    const expected = createHash('sha256').update(`parley.end-user.v1\n${org}\nuser-42`).digest('hex');
    expect(endUserHash(org, 'user-42')).toBe(expected);
    expect(endUserHash(org, 'user-42')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('tells users and organizations apart', () => {
    const other = '0193a3c5-6f5e-7c3a-9b1d-2f4e8a6b0c12';
    expect(endUserHash(org, 'user-42')).not.toBe(endUserHash(other, 'user-42'));
    expect(endUserHash(org, 'user-42')).not.toBe(endUserHash(org, 'user-43'));
  });
});
