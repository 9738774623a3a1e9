import { basicAuthAccepts } from './basic-auth';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('basicAuthAccepts', () => {
  it('accepts the configured user and password', () => {
    expect(basicAuthAccepts(basic('admin:s3cret-pass'), 'admin', 's3cret-pass')).toBe(true);
  });

  it('accepts a password that contains a colon', () => {
    expect(basicAuthAccepts(basic('admin:a:b:c'), 'admin', 'a:b:c')).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another scheme', 'Bearer abc'],
    ['a wrong password', basic('admin:wrong')],
    ['a wrong user', basic('root:s3cret-pass')],
    ['a longer password', basic('admin:s3cret-pass!')],
    ['no colon', basic('admins3cret-pass')],
    ['garbage', 'Basic !!!'],
  ])('refuses %s', (_name, header) => {
    expect(basicAuthAccepts(header, 'admin', 's3cret-pass')).toBe(false);
  });
});
