import pino from 'pino';
import { Writable } from 'node:stream';
import { REDACTED_PATHS } from './logging.module';

/** The logger's redaction as the apps configure it: secrets and credential headers never reach a line. */
describe('log redaction', () => {
  function logLine(object: object): Record<string, unknown> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination).info(object, 'line');
    return JSON.parse(lines[0]) as Record<string, unknown>;
  }

  it('censors a secret setting logged at the top of a line or inside a settings object', () => {
    const line = logLine({
      openaiApiKey: 'sk-top',
      settings: { adminPassword: 'hunter2', internalToken: 'tok', logLevel: 'info' },
    });
    expect(line.openaiApiKey).toBe('[redacted]');
    expect(line.settings).toEqual({
      adminPassword: '[redacted]',
      internalToken: '[redacted]',
      logLevel: 'info',
    });
    expect(JSON.stringify(line)).not.toMatch(/sk-top|hunter2|"tok"/);
  });

  it('censors credential headers and keeps the others', () => {
    const line = logLine({
      req: { headers: { authorization: 'Bearer sk-svc-x', 'x-service-token': 'sk-svc-y', accept: '*/*' } },
    });
    expect(line.req).toEqual({
      headers: { authorization: '[redacted]', 'x-service-token': '[redacted]', accept: '*/*' },
    });
  });
});
