import { Catch, Logger } from '@nestjs/common';
import { ProtocolErrorFilter, RequestFailure } from '../protocol-error.filter';

/** AG-UI's error event, as the body of a request refused before its run started. */
interface RunErrorBody {
  type: 'RUN_ERROR';
  message: string;
  code: string;
  loc?: (string | number)[];
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'invalid_input',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * Errors of /ag-ui in AG-UI's own form (CONTRACTS §22): the HTTP status the rest of the API gives, with a
 * RUN_ERROR event as the body (`message`, `code`, and for bad input `loc`, the field), which `HttpAgent` puts in
 * the error it raises. A run that fails once started ends with a RUN_ERROR event in its stream instead.
 */
@Catch()
export class AgUiErrorFilter extends ProtocolErrorFilter<RunErrorBody> {
  protected readonly logger = new Logger(AgUiErrorFilter.name);

  protected answer({ status, message, issue }: RequestFailure): { status: number; body: RunErrorBody } {
    return {
      status,
      body: {
        type: 'RUN_ERROR',
        message,
        code: CODES[status] ?? 'internal_error',
        ...(issue ? { loc: issue.loc } : {}),
      },
    };
  }
}
