import { ReplyStartLatency } from './reply-start-latency';

/** Moves performance.now() by hand, so the windows' figures are exact. */
function clock(): { advance(ms: number): void } {
  let now = 1000;
  jest.spyOn(performance, 'now').mockImplementation(() => now);
  return { advance: (ms) => (now += ms) };
}

afterEach(() => jest.restoreAllMocks());

describe('ReplyStartLatency', () => {
  it('is 0 for a window without starts', () => {
    expect(new ReplyStartLatency().takeWindow()).toBe(0);
  });

  it('takes the fastest start that ended in the window, not the slowest', () => {
    const time = clock();
    const latency = new ReplyStartLatency();
    const slow = latency.begin();
    time.advance(50);
    const fast = latency.begin();
    time.advance(30);
    fast();
    time.advance(900);
    slow();
    expect(latency.takeWindow()).toBe(30);
  });

  it('starts each window afresh', () => {
    const time = clock();
    const latency = new ReplyStartLatency();
    const first = latency.begin();
    time.advance(700);
    first();
    expect(latency.takeWindow()).toBe(700);
    expect(latency.takeWindow()).toBe(0);
  });

  it('does not count starts still under way', () => {
    const time = clock();
    const latency = new ReplyStartLatency();
    const held = latency.begin();
    time.advance(5000);
    expect(latency.takeWindow()).toBe(0);
    held();
    expect(latency.takeWindow()).toBe(5000);
  });

  it('counts a start once, however many times its end is reported', () => {
    const time = clock();
    const latency = new ReplyStartLatency();
    const start = latency.begin();
    time.advance(20);
    start();
    expect(latency.takeWindow()).toBe(20);
    time.advance(500);
    start();
    expect(latency.takeWindow()).toBe(0);
  });
});
