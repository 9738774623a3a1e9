import { DynamicModule, Module } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
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

/**
 * Structured JSON logs (pino) for every app. Request logs carry the request id that the gateway returns in
 * `x-request-id`; bodies are never logged.
 */
@Module({})
export class LoggingModule {
  static forApp(app: string): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [Settings],
          useFactory: (settings: Settings) => ({
            pinoHttp: {
              level: settings.logLevel,
              base: { app },
              redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
              genReqId: (req: IncomingMessage) => String(req.headers['x-request-id'] ?? ''),
              customProps: (req: IncomingMessage) => ({ requestId: req.headers['x-request-id'] }),
              serializers: {
                // The path only: a query string carries end-user ids, file names and memory paths.
                req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
                  method: req.method,
                  url: req.url.split('?')[0],
                }),
              },
              // Probes and scrapes come every few seconds: not worth a line each.
              autoLogging: {
                ignore: (req: IncomingMessage) => /^\/(health|metrics)(\/|$|\?)/.test(req.url ?? ''),
              },
            },
          }),
        }),
      ],
    };
  }
}
