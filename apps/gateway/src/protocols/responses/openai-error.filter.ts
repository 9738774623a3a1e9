import { Catch, Logger } from '@nestjs/common';
import { ProtocolErrorFilter, RequestFailure } from '../protocol-error.filter';

/** OpenAI's error body: what its SDKs read into their error classes. */
interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'server_error',
};

/**
 * The errors of /openai/v1 in OpenAI's shape (CONTRACTS §18), with the status the rest of the API gives, but a
 * validation error (422 elsewhere) is a 400 `invalid_request_error` naming its field in `param`.
 */
@Catch()
export class OpenAiErrorFilter extends ProtocolErrorFilter<OpenAiErrorBody> {
  protected readonly logger = new Logger(OpenAiErrorFilter.name);

  protected answer({ status, message, issue }: RequestFailure): { status: number; body: OpenAiErrorBody } {
    // A validation error is a 400 naming its field: ["body", "input", 0] → "input[0]" (the part is implied).
    const param = issue
      ? issue.loc
          .slice(1)
          .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`))
          .join('') || null
      : null;
    const answered = issue ? 400 : status;
    return {
      status: answered,
      body: { error: { message, type: TYPES[answered] ?? 'server_error', param, code: null } },
    };
  }
}
