import { Writable } from 'node:stream';
import { loadSettings } from '@app/config';
import { startupLogger } from './startup-logger';

/** The lines a startup logger writes, parsed. */
function capture(): { lines: Record<string, unknown>[]; destination: Writable } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('startupLogger', () => {
  it('writes what Nest logs before the app logger exists as JSON lines with a msg', () => {
    const { lines, destination } = capture();
    const logger = startupLogger('worker', loadSettings({}), destination);

    logger.log('Starting Nest application...', 'NestFactory');
    logger.log({ count: 3 }, 'platform skills loaded', 'PlatformSkills');
    logger.log({ msg: 'shutting down', signal: 'SIGTERM' });
    logger.error(
      'Unable to connect to the database. Retrying (1)...',
      'error: database "x" does not exist\n    at parseErrorMessage (parser.js:1:1)',
      'TypeOrmModule',
    );
    logger.error({ msg: 'shutdown failed' }, 'Shutdown');

    expect(lines).toEqual([
      expect.objectContaining({ app: 'worker', context: 'NestFactory', msg: 'Starting Nest application...' }),
      expect.objectContaining({ context: 'PlatformSkills', count: 3, msg: 'platform skills loaded' }),
      expect.objectContaining({ msg: 'shutting down', signal: 'SIGTERM' }),
      expect.objectContaining({
        context: 'TypeOrmModule',
        err: expect.objectContaining({ stack: expect.stringContaining('does not exist') }),
        msg: 'Unable to connect to the database. Retrying (1)...',
      }),
      expect.objectContaining({ context: 'Shutdown', msg: 'shutdown failed', level: 50 }),
    ]);
  });
});
