import { assertDeliverableUrl, UndeliverableUrlError } from './webhook-url';

describe('assertDeliverableUrl', () => {
  it.each(['http://127.0.0.1:8080/hook', 'http://10.1.2.3/x', 'http://169.254.169.254/', 'http://[::1]/x'])(
    'refuses %s, a private, loopback or link-local address',
    async (url) => {
      await expect(assertDeliverableUrl(url, false)).rejects.toThrow(UndeliverableUrlError);
    },
  );

  it('refuses a name that resolves to loopback', async () => {
    await expect(assertDeliverableUrl('http://localhost:9/hook', false)).rejects.toThrow(/loopback/);
  });

  it('refuses what is not http(s)', async () => {
    await expect(assertDeliverableUrl('ftp://93.184.216.34/x', false)).rejects.toThrow(/http and https/);
    await expect(assertDeliverableUrl('not a url', true)).rejects.toThrow(/not a URL/);
  });

  it('accepts a public address, and a private one when allowed', async () => {
    await expect(assertDeliverableUrl('https://93.184.216.34/hook', false)).resolves.toBeUndefined();
    await expect(assertDeliverableUrl('http://127.0.0.1:8080/hook', true)).resolves.toBeUndefined();
  });
});
