/**
 * A poll that explains itself: `until(read, done, timeoutMs?)` reads every `intervalMs` until `done` holds of the
 * value, and answers it; past the deadline it fails with the last value and the last `tail` characters of
 * `output()` (a process's log, which usually says why).
 */
export function untilShowing(
  output: () => string | undefined,
  options: { timeoutMs: number; intervalMs: number; tail: number },
) {
  return async function until<T>(
    read: () => Promise<T>,
    done: (value: T) => boolean,
    timeoutMs = options.timeoutMs,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline)
        throw new Error(`not reached: ${JSON.stringify(value)}\n${output()?.slice(-options.tail)}`);
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
  };
}
