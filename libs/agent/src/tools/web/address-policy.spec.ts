import { checkLiteralHost, DeniedAddressError, guardedLookup, isDeniedAddress } from './address-policy';

describe('address policy of the web tool', () => {
  it.each([
    '127.0.0.1',
    '127.5.6.7',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('denies %s', (address) => {
    expect(isDeniedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isDeniedAddress(address)).toBe(false);
    },
  );

  it('refuses IP literal hosts, bracketed IPv6 included', () => {
    expect(() => checkLiteralHost('127.0.0.1')).toThrow(DeniedAddressError);
    expect(() => checkLiteralHost('[::1]')).toThrow(DeniedAddressError);
    expect(() => checkLiteralHost('example.com')).not.toThrow();
  });

  it('answers a lookup of a name resolving to loopback with an error, not an address', async () => {
    const outcome = await new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup('localhost', { all: true }, (error, address) => resolve({ error, address })),
    );
    expect(outcome.error).toBeInstanceOf(DeniedAddressError);
    expect(outcome.error?.message).toMatch(/localhost resolves to a private, loopback or link-local address/);
  });
});
