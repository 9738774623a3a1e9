import { DynamicModule, Module } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { Options } from 'pino-http';
import { SECRET_SETTINGS, Settings } from '@app/config';

/**
 * Never written to a log line: the headers that carry credentials, and the secret settings wherever a
 * settings object (or a part of one) is logged, at the top of the line or one object down.
 */
export const REDACTED_PATHS = [
  'req.headers["x-service-token"]',
  'req.headers.authorization',
  'req.headers["x-internal-token"]',
  'req.headers["x-share-password"]',
  'req.headers.cookie',
  ...SECRET_SETTINGS.flatMap((setting) => [setting, `*.${setting}`]),
];

/** The path a client asked for: Nest's middleware adapter cuts `req.url` down to its mount point (`/`). */
const requestPath = (req: IncomingMessage & { originalUrl?: string }): string =>
  (req.originalUrl ?? req.url ?? '').split('?')[0];

/**
 * pino-http's options: one line per request when its response ends, with the method, the path (never the query
 * string: it carries end-user ids, file names and memory paths), the status and the request id the gateway
 * returns in `x-request-id`; never a body or a header. Probes and scrapes come every few seconds: no line.
 */
export function requestLogging(app: string, level: string): Options {
  return {
    level,
    base: { app },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    genReqId: (req: IncomingMessage) => String(req.headers['x-request-id'] ?? ''),
    customProps: (req: IncomingMessage) => ({ requestId: req.headers['x-request-id'] }),
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req: IncomingMessage) => /^\/(health|metrics)(\/|$)/.test(requestPath(req)) },
  };
}

/** Structured JSON logs (pino) for every app, requests logged as `requestLogging` says. */
@Module({})
export class LoggingModule {
  static forApp(app: string): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [Settings],
          useFactory: (settings: Settings) => ({ pinoHttp: requestLogging(app, settings.logLevel) }),
        }),
      ],
    };
  }
}
