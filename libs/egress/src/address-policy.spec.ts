import { networkInterfaces } from 'node:os';
import {
  checkLiteralHost,
  DeniedAddressError,
  deniedReason,
  guardedLookup,
  isDeniedAddress,
} from './address-policy';

const NONE = new Set<string>();

describe('address policy of outgoing connections', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.5.6.7', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a linkLocal address'],
    ['100.64.0.1', 'a carrierGradeNat address'],
    ['0.0.0.0', 'a unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['192.0.2.10', 'a reserved address'],
    ['198.51.100.7', 'a reserved address'],
    ['203.0.113.9', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['240.0.0.1', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['::', 'a unspecified address'],
    ['fd12:3456::1', 'a uniqueLocal address'],
    ['fe80::1', 'a linkLocal address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a reserved address'],
    ['2002:808:808::', 'a 6to4 address'],
    ['64:ff9b::808:808', 'a rfc6052 address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['::ffff:192.0.2.1', 'a reserved address'],
  ])('denies %s as %s', (address, reason) => {
    expect(deniedReason(address, NONE)).toBe(reason);
  });

  // Issue #44: each spelling of loopback or metadata an IPv6 address can carry, judged as the IPv4 it carries.
  it.each([
    // ipaddr.js reads the dotted `::a.b.c.d` as mapped; URLs and DNS answers give it as `::7f00:1`.
    ['::127.0.0.1', 'a loopback address'],
    ['::7f00:1', 'a loopback address inside an IPv6 address'],
    ['::a9fe:a9fe', 'a linkLocal address inside an IPv6 address'],
    ['::169.254.169.254', 'a linkLocal address'],
    ['0:0:0:0:0:0:7f00:1', 'a loopback address inside an IPv6 address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a linkLocal address'],
    ['::ffff:0:7f00:1', 'a loopback address inside an IPv6 address'],
    ['64:ff9b::127.0.0.1', 'a loopback address inside an IPv6 address'],
    ['64:ff9b::a9fe:a9fe', 'a linkLocal address inside an IPv6 address'],
    ['64:ff9b:1::a9fe:a9fe', 'a linkLocal address inside an IPv6 address'],
    ['2002:7f00:0001::', 'a loopback address inside an IPv6 address'],
    ['2002:a9fe:a9fe::1', 'a linkLocal address inside an IPv6 address'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a loopback address inside an IPv6 address'],
    ['::808:808', 'a deprecated IPv4-compatible address'],
  ])('denies the embedded IPv4 of %s as %s', (address, reason) => {
    expect(deniedReason(address, NONE)).toBe(reason);
  });

  it('denies an IPv6 spelling of an address of this host', () => {
    expect(deniedReason('::808:808', new Set(['8.8.8.8']))).toBe(
      'an address of this host inside an IPv6 address',
    );
    expect(deniedReason('64:ff9b::8.8.8.8', new Set(['8.8.8.8']))).toBe(
      'an address of this host inside an IPv6 address',
    );
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isDeniedAddress(address, NONE)).toBe(false);
    },
  );

  it('denies a public address when it is one of this host', () => {
    expect(deniedReason('8.8.8.8', new Set(['8.8.8.8']))).toBe('an address of this host');
    expect(deniedReason('::ffff:8.8.8.8', new Set(['8.8.8.8']))).toBe('an address of this host');
  });

  it("denies every address of this host's own interfaces, as read from the system", () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .map((entry) => entry!.address.split('%')[0]);
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) expect(deniedReason(address)).toBe('an address of this host');
  });

  it('refuses IP literal hosts, bracketed IPv6 included', () => {
    expect(() => checkLiteralHost('127.0.0.1')).toThrow(
      new DeniedAddressError('127.0.0.1 is an address of this host'),
    );
    expect(() => checkLiteralHost('[::1]')).toThrow(DeniedAddressError);
    expect(() => checkLiteralHost('[::ffff:7f00:1]')).toThrow(DeniedAddressError);
    expect(() => checkLiteralHost('example.com')).not.toThrow();
  });

  it('answers a lookup of a name resolving to loopback with an error, not an address', async () => {
    const outcome = await new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup('localhost', { all: true }, (error, address) => resolve({ error, address })),
    );
    expect(outcome.error).toBeInstanceOf(DeniedAddressError);
    expect(outcome.error?.message).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), an address of this host$/,
    );
  });
});
