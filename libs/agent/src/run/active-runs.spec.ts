import { ActiveRuns, RunCancelledError, RunHandedBackError } from './active-runs';

describe('ActiveRuns', () => {
  it("aborts the thread's run, or only the named reply's", () => {
    const runs = new ActiveRuns();
    const controller = runs.start('t1', 'r1');
    expect(runs.cancel('t1', 'r0')).toBe(false);
    expect(controller.signal.aborted).toBe(false);
    expect(runs.cancel('t1', 'r1')).toBe(true);
    expect(controller.signal.reason).toBeInstanceOf(RunCancelledError);
    expect(runs.cancel('t2')).toBe(false);
  });

  it('stops a named reply that starts here just after the request came', () => {
    const runs = new ActiveRuns();
    expect(runs.cancel('t1', 'r1')).toBe(false);
    expect(runs.start('t1', 'r1').signal.aborted).toBe(true);
    runs.end('t1', 'r1');
    // Remembered once: a later run of another reply, or the same thread, is not touched.
    expect(runs.start('t1', 'r2').signal.aborted).toBe(false);
  });

  it('hands back every run in flight, and any run that starts after that', () => {
    const runs = new ActiveRuns();
    const running = runs.start('t1', 'r1');
    expect(runs.stopping).toBe(false);
    expect(runs.handBackAll()).toBe(1);
    expect(running.signal.reason).toBeInstanceOf(RunHandedBackError);
    expect(runs.stopping).toBe(true);
    // A paused BullMQ worker may still receive one job: its run must not go on here.
    expect(runs.start('t2', 'r2').signal.reason).toBeInstanceOf(RunHandedBackError);
  });
});
