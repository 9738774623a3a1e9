import { LoggerService } from '@nestjs/common';
import pino from 'pino';
import { Settings } from '@app/config';
import { REDACTED_PATHS } from './logging.module';

/**
 * What Nest logs before the app's own logger exists (module loading, the database and Redis connection retries,
 * a failed start): the same JSON lines with a `msg` as the rest of the app, written at once, so a person whose
 * database is down sees why within a second instead of Nest's coloured console text at the end.
 */
export function startupLogger(app: string, settings: Settings): LoggerService {
  const logger = pino({
    level: settings.logLevel,
    base: { app },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
  const line =
    (level: 'info' | 'warn' | 'debug' | 'trace') =>
    (message: unknown, context?: string): void =>
      logger[level]({ context }, String(message));
  return {
    log: line('info'),
    warn: line('warn'),
    debug: line('debug'),
    verbose: line('trace'),
    error: (message: unknown, stackOrContext?: string, context?: string) => {
      const error = message instanceof Error ? message : undefined;
      // Nest passes (message, stack, context), or (message, context) when there is no stack.
      const [stack, where] = context === undefined ? [undefined, stackOrContext] : [stackOrContext, context];
      logger.error({ context: where, stack: error?.stack ?? stack }, error ? error.message : String(message));
    },
    fatal: (message: unknown, context?: string) => logger.fatal({ context }, String(message)),
  };
}
