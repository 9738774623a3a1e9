import { LoggerService } from '@nestjs/common';
import pino from 'pino';
import { Settings } from '@app/config';
import { REDACTED_PATHS } from './logging.module';

type Level = 'info' | 'warn' | 'debug' | 'trace' | 'fatal' | 'error';

/**
 * What Nest logs before the app's own logger exists (module loading, the database and Redis connection retries,
 * a failed start): the same JSON lines with a `msg` as the rest of the app, written at once, so a person whose
 * database is down sees why within a second instead of Nest's coloured console text at the end. Parameters are
 * read as nestjs-pino reads them, so a call logs the same line before and after the switch: the last one is the
 * context, an object first holds fields, and an error with a stack trace becomes `err`.
 */
export function startupLogger(
  app: string,
  settings: Settings,
  destination: pino.DestinationStream = pino.destination(1),
): LoggerService {
  const logger = pino(
    { level: settings.logLevel, base: { app }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    destination,
  );
  const call =
    (level: Level) =>
    (message: unknown, ...optionalParams: unknown[]): void => {
      const fields: Record<string, unknown> = {};
      const params = optionalParams.slice(0, -1) as string[];
      if (optionalParams.length > 0) fields.context = optionalParams[optionalParams.length - 1];
      if (typeof message === 'object' && message !== null) {
        Object.assign(fields, message instanceof Error ? { err: message } : message);
        logger[level](fields, ...(params as [string]));
      } else if (level === 'error' && params.length === 1 && /\n\s*at /.test(String(params[0]))) {
        // Nest's (message, stack, context) contract for errors.
        const err = new Error(String(message));
        err.stack = params[0];
        logger.error({ ...fields, err });
      } else logger[level](fields, String(message), ...params);
    };
  return {
    log: call('info'),
    warn: call('warn'),
    debug: call('debug'),
    verbose: call('trace'),
    error: call('error'),
    fatal: call('fatal'),
  };
}
