import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import {
  AtCapacityError,
  ConflictError,
  DependencyUnavailableError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
  VersionConflictError,
} from '@app/contracts';
import { FastifyReply } from 'fastify';
import { HttpErrorFilter, RETRY_AFTER_SECONDS, setRetryAfter } from './http-error.filter';

function answer(error: unknown): { status: number; body: unknown; headers: Record<string, string> } {
  const sent = { status: 0, body: undefined as unknown, headers: {} as Record<string, string> };
  const reply = {
    sent: false,
    header(name: string, value: string) {
      sent.headers[name] = value;
      return this;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    type() {
      return this;
    },
    // The filter sends the JSON text it wrote (as FastAPI writes it): parsed here for the assertions.
    send(body: string) {
      sent.body = JSON.parse(body);
      return this;
    },
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ id: 'req-1' }) }),
  } as unknown as ArgumentsHost;
  new HttpErrorFilter().catch(error, host);
  return sent;
}

/** A TypeORM QueryFailedError as it wraps a pg error. */
const queryFailed = (driverError: Error) => Object.assign(new Error(driverError.message), { driverError });

describe('HttpErrorFilter', () => {
  afterEach(() => jest.restoreAllMocks());

  it.each([
    [
      'PostgreSQL refusing connections',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    [
      'several refused addresses',
      new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })], ''),
    ],
    ['a connection terminated mid-query', queryFailed(new Error('Connection terminated unexpectedly'))],
    ['the pool connection timeout', new Error('timeout exceeded when trying to connect')],
    [
      'PostgreSQL shutting down (57P01)',
      queryFailed(Object.assign(new Error('terminating connection'), { code: '57P01' })),
    ],
    [
      'PostgreSQL starting up (57P03)',
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    ],
    ['a Redis command timeout', new Error('Command timed out')],
    [
      'Redis down without an offline queue',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ],
    ['Redis retries exhausted', new Error('Reached the max retries per request limit (which is 1).')],
    ['a DependencyUnavailableError', new DependencyUnavailableError('Redis is unavailable')],
  ])('answers 503 with Retry-After for %s', (_what, error) => {
    const sent = answer(error);
    expect(sent.status).toBe(503);
    expect(sent.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(sent.body).toEqual({ detail: 'Service temporarily unavailable; retry later' });
  });

  it('still answers 500 for a query that fails for another reason', () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const sent = answer(queryFailed(Object.assign(new Error('syntax error'), { code: '42601' })));
    expect(sent.status).toBe(500);
    expect(sent.headers['retry-after']).toBeUndefined();
  });

  it.each([
    [new NotFoundError('Agent not found'), 404],
    [new VersionConflictError('stale'), 409],
    [new ConflictError('in use'), 409],
    [new UnauthenticatedError('Missing x-service-token or Authorization: Bearer header'), 401],
    [new ForbiddenError('no'), 403],
    [new GoneError('revoked'), 410],
  ])('answers %p with %p and {"detail": message}', (error, status) => {
    expect(answer(error)).toMatchObject({ status, body: { detail: error.message } });
  });

  it('answers a 422 with the list of issues', () => {
    const issues = [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: null }];
    expect(answer(new InvalidInputError(issues))).toMatchObject({ status: 422, body: { detail: issues } });
  });

  it('keeps the status of Fastify errors that did not come through Nest', () => {
    const error = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(answer(error)).toMatchObject({ status: 413, body: { detail: 'Request body is too large' } });
  });

  it('keeps the status of Nest HTTP exceptions, with a string detail', () => {
    expect(answer(new NotFoundException('Cannot GET /nope'))).toMatchObject({
      status: 404,
      body: { detail: 'Cannot GET /nope' },
    });
  });

  it('hides unknown errors behind a 500 "Internal error"', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(answer(new Error('database password is hunter2'))).toEqual({
      status: 500,
      body: { detail: 'Internal error' },
      headers: {},
    });
    expect(logged).toHaveBeenCalledTimes(1);
  });
});

describe('setRetryAfter', () => {
  const retryAfter = (error: unknown, status: number): unknown => {
    const headers: Record<string, unknown> = {};
    const reply = { header: (name: string, value: unknown) => (headers[name] = value) };
    setRetryAfter(reply as unknown as FastifyReply, error, status);
    return headers['retry-after'];
  };

  it("gives admission control's own wait when at capacity", () => {
    expect(retryAfter(new AtCapacityError('at capacity', 1), 503)).toBe('1');
  });

  it('gives RETRY_AFTER_SECONDS for any other 503', () => {
    expect(retryAfter(new DependencyUnavailableError('down'), 503)).toBe(String(RETRY_AFTER_SECONDS));
  });

  it("gives the rate limit's wait for a 429", () => {
    expect(retryAfter(new TooManyRequestsError('slow down', 42), 429)).toBe(42);
  });

  it('gives none for an error a retry would not cure', () => {
    expect(retryAfter(new NotFoundError('gone'), 404)).toBeUndefined();
  });
});
