import { assertEgressUrl, EgressUrlError } from './egress-url';

describe('assertEgressUrl', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', '127.0.0.1 is an address of this host'],
    ['http://10.1.2.3/x', '10.1.2.3 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a linkLocal address'],
    ['http://[fd00::1]/x', 'fd00::1 is a uniqueLocal address'],
  ])('refuses %s: %s', async (url, reason) => {
    await expect(assertEgressUrl(url, false)).rejects.toThrow(new EgressUrlError(reason));
  });

  it('refuses IPv6 loopback', async () => {
    await expect(assertEgressUrl('http://[::1]/x', false)).rejects.toThrow(
      /^::1 is (an address of this host|a loopback address)$/,
    );
  });

  it('refuses a name that resolves to loopback, naming the address', async () => {
    await expect(assertEgressUrl('http://localhost:9/hook', false)).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), an address of this host$/,
    );
  });

  it('refuses what is not http(s)', async () => {
    await expect(assertEgressUrl('ftp://93.184.216.34/x', false)).rejects.toThrow(/http and https/);
    await expect(assertEgressUrl('not a url', true)).rejects.toThrow(/not a URL/);
  });

  it('accepts a public address, and a private one when allowed', async () => {
    await expect(assertEgressUrl('https://93.184.216.34/hook', false)).resolves.toBeUndefined();
    await expect(assertEgressUrl('http://127.0.0.1:8080/hook', true)).resolves.toBeUndefined();
  });
});
