/**
 * Domain errors thrown by libs and use cases. They know nothing of HTTP: the gateway's HttpErrorFilter
 * maps each to a status; the worker and the admin CLI reuse them as they are.
 */
export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Missing, or not the caller's: both answer 404 with the same body. */
export class NotFoundError extends DomainError {}

/** A write based on a stale version (409). */
export class VersionConflictError extends DomainError {}

/** The request conflicts with the current state, e.g. deleting something still in use (409). */
export class ConflictError extends DomainError {}

/** The caller is known but not allowed to do this (403). */
export class ForbiddenError extends DomainError {}

/** No valid credentials (401). */
export class UnauthenticatedError extends DomainError {}

/** A request error that is not a validation error, e.g. "Missing namespace" (400). */
export class BadRequestError extends DomainError {}

/** The resource existed but is gone for good, e.g. a revoked share link (410). */
export class GoneError extends DomainError {}

/** Payload too large (413). */
export class PayloadTooLargeError extends DomainError {}

/** A dependency (PostgreSQL, Redis) does not answer: retryable, answered 503 with `Retry-After`. */
export class DependencyUnavailableError extends DomainError {}

/**
 * The service is at capacity (admission control): a reply it would accept now could not be served in time.
 * Retryable like an unavailable dependency (503), after `retryAfterSeconds`.
 */
export class AtCapacityError extends DependencyUnavailableError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Too many attempts from this caller or at this target (429, with `Retry-After`). */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** One item of a 422 body (API-SPEC 2.13). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * Input that passed the DTO's shape rules but fails a rule needing the database (an unknown file id,
 * a namespace that differs from the thread's): answered 422 with the same body as any validation error.
 */
export class InvalidInputError extends DomainError {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}
