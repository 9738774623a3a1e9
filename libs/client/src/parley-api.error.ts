/** A response that was not a success: `status` is the HTTP status, `body` the parsed JSON (or the text). */
export class ParleyApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`Parley API answered ${status}: ${describe(body)}`);
    this.name = 'ParleyApiError';
  }
}

function describe(body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  return JSON.stringify(detail ?? body);
}
