import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  UnauthenticatedError,
  VersionConflictError,
} from '@app/contracts';
import { HttpErrorFilter } from './http-error.filter';

function answer(error: unknown): { status: number; body: unknown } {
  const sent: { status: number; body: unknown } = { status: 0, body: undefined };
  const reply = {
    sent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    send(body: unknown) {
      sent.body = body;
      return this;
    },
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ id: 'req-1' }) }),
  } as unknown as ArgumentsHost;
  new HttpErrorFilter().catch(error, host);
  return sent;
}

describe('HttpErrorFilter', () => {
  it.each([
    [new NotFoundError('Agent not found'), 404],
    [new VersionConflictError('stale'), 409],
    [new ConflictError('in use'), 409],
    [new UnauthenticatedError('Missing x-service-token header'), 401],
    [new ForbiddenError('no'), 403],
    [new GoneError('revoked'), 410],
  ])('answers %p with %p and {"detail": message}', (error, status) => {
    expect(answer(error)).toEqual({ status, body: { detail: error.message } });
  });

  it('answers a 422 with the list of issues', () => {
    const issues = [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: null }];
    expect(answer(new InvalidInputError(issues))).toEqual({ status: 422, body: { detail: issues } });
  });

  it('keeps the status of Fastify errors that did not come through Nest', () => {
    const error = Object.assign(new Error('Request body is too large'), { statusCode: 413 });
    expect(answer(error)).toEqual({ status: 413, body: { detail: 'Request body is too large' } });
  });

  it('keeps the status of Nest HTTP exceptions, with a string detail', () => {
    expect(answer(new NotFoundException('Cannot GET /nope'))).toEqual({
      status: 404,
      body: { detail: 'Cannot GET /nope' },
    });
  });

  it('hides unknown errors behind a 500 "Internal error"', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(answer(new Error('database password is hunter2'))).toEqual({
      status: 500,
      body: { detail: 'Internal error' },
    });
    expect(logged).toHaveBeenCalledTimes(1);
  });
});
