import { DynamicModule, Module } from '@nestjs/common';
import { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { Settings } from '@app/config';

/** Headers that carry credentials: never written to a log line. */
const REDACTED_PATHS = [
  'req.headers["x-service-token"]',
  'req.headers.authorization',
  'req.headers["x-internal-token"]',
  'req.headers["x-share-password"]',
  'req.headers.cookie',
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
                req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
                  method: req.method,
                  url: req.url,
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
