import { INestApplicationContext, LoggerService } from '@nestjs/common';
import { stopTracing } from './tracing';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Graceful stop on SIGTERM/SIGINT: `beforeClose` (the worker hands its runs back), then `app.close()` runs every shutdown hook (the HTTP server stops taking
 * connections and waits for requests in flight, consumers finish or hand back their jobs, connections close),
 * then the process exits 0. Nest's own `enableShutdownHooks` re-raises the signal after closing, which ends the
 * process "killed by SIGTERM" instead; orchestrators and `npm start` read a clean stop better as exit 0.
 * Past `timeoutMs` the process exits 1 whatever is still open.
 */
export function exitGracefullyOnSignals(
  app: INestApplicationContext,
  logger: LoggerService,
  timeoutMs: number,
  /** Runs first, within the same deadline: e.g. a worker hands its runs back before its consumers close. */
  beforeClose: () => Promise<void> = async () => undefined,
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log({ msg: 'shutting down', signal });
    const deadline = setTimeout(() => {
      logger.error({ msg: 'shutdown timed out', timeoutMs });
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    beforeClose()
      .catch((error: Error) => logger.error({ msg: 'shutdown step failed', err: error }))
      .then(() => app.close())
      // Spans still buffered go out last, the closing's included.
      .then(stopTracing)
      .then(
        () => process.exit(0),
        (error: Error) => {
          logger.error({ msg: 'shutdown failed', err: error });
          process.exit(1);
        },
      );
  };
  for (const signal of SIGNALS) process.once(signal, stop);
}
