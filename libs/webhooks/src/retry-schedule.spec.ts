import { MAX_RETRY_DELAY_MS, nextRetryAt, RETRY_WINDOW_MS } from './retry-schedule';

describe('nextRetryAt', () => {
  const eventAt = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number) => new Date(eventAt.getTime() + ms);

  it('waits the base delay after the first failure, then twice as long each time', () => {
    expect(nextRetryAt(eventAt, 1, at(0), 5000)).toEqual(at(5000));
    expect(nextRetryAt(eventAt, 2, at(5000), 5000)).toEqual(at(15000));
    expect(nextRetryAt(eventAt, 3, at(15000), 5000)).toEqual(at(35000));
  });

  it('never waits more than an hour', () => {
    expect(nextRetryAt(eventAt, 20, at(0), 5000)).toEqual(at(MAX_RETRY_DELAY_MS));
  });

  it('gives up once the next try would fall past 24 h after the event', () => {
    expect(nextRetryAt(eventAt, 30, at(RETRY_WINDOW_MS - MAX_RETRY_DELAY_MS), 5000)).toEqual(
      at(RETRY_WINDOW_MS),
    );
    expect(nextRetryAt(eventAt, 30, at(RETRY_WINDOW_MS - MAX_RETRY_DELAY_MS + 1), 5000)).toBeNull();
  });
});
