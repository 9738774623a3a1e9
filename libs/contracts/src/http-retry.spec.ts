import { backoffMs, retryAfterMs } from './http-retry';

describe('retryAfterMs', () => {
  it('reads Retry-After as seconds or as a date, and nothing else', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('0.5')).toBe(500);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(new Date(1_000).toUTCString(), 4_000)).toBe(0);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs('')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });
});

describe('backoffMs', () => {
  it('doubles from the base and stops at the cap, even after very many retries', () => {
    expect([0, 1, 2, 3].map((retry) => backoffMs(1000, retry, 30_000))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(1000, 5, 30_000)).toBe(30_000);
    expect(backoffMs(1000, 5000, 30_000)).toBe(30_000);
  });
});
