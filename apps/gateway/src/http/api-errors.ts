import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiAnyValue } from '../ops/openapi-finish';

/** The body of every error but 422 (CONTRACTS §2). */
export class ErrorResponse {
  @ApiProperty({ description: 'What went wrong, for a person to read.' })
  detail: string;
}

/** One failing field of a 422, as Pydantic reports it (API-SPEC 2.13). */
export class ValidationIssueResponse {
  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    description: 'Where the value was: body, query, path or header, then the field names and list indexes.',
    example: ['body', 'message', 'content'],
  })
  loc: (string | number)[];
  @ApiProperty({ example: 'String should have at most 30000 characters' })
  msg: string;
  @ApiProperty({ description: "Pydantic's error type.", example: 'string_too_long' })
  type: string;
  @ApiAnyValue('The value that failed, as it was sent (any JSON value).')
  input?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "The rule's parameters.",
    example: { max_length: 30000 },
  })
  ctx?: Record<string, unknown>;
}

/** The 422 body (API-SPEC 2.13, CONTRACTS §3): one item per failing field. */
export class ValidationErrorResponse {
  @ApiProperty({ type: [ValidationIssueResponse] })
  detail: ValidationIssueResponse[];
}

const ERRORS = {
  400: 'Bad request: a body that cannot be parsed, or the message says which rule was broken.',
  401: 'No x-service-token, a malformed one, an unknown or revoked key, or an expired or altered end-user token.',
  403: 'Not allowed (an end-user token on a route not open to it, or a user_id not its own).',
  404: "Not found, or another organization's or end user's: the two are not told apart.",
  409: 'Conflict with the current state.',
  410: 'Gone.',
  413: 'Request body too large.',
  429: 'Over the rate limit of the API key; Retry-After says when to try again.',
  503: 'PostgreSQL or Redis is unavailable; retry after Retry-After seconds.',
} as const;

type ErrorStatus = keyof typeof ERRORS | 422;

/**
 * Error answers of an operation, each with its body schema. `description` replaces the generic wording of a
 * status where the operation has a more precise one.
 */
export function ApiErrors(
  statuses: ErrorStatus[],
  descriptions: Partial<Record<ErrorStatus, string>> = {},
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorResponse, ValidationErrorResponse),
    ...statuses.map((status) =>
      status === 422
        ? ApiResponse({
            status,
            description: descriptions[422] ?? 'Validation failed: one item per failing field.',
            schema: { $ref: getSchemaPath(ValidationErrorResponse) },
          })
        : ApiResponse({
            status,
            description: descriptions[status] ?? ERRORS[status],
            content: {
              'application/json': {
                schema: { $ref: getSchemaPath(ErrorResponse) },
                example: { detail: descriptions[status] ?? ERRORS[status] },
              },
            },
          }),
    ),
  );
}

/**
 * What any operation behind the service token may answer: every request is authenticated (an end-user token
 * may be refused the route), validated, counted against the rate limit and served from PostgreSQL and Redis.
 */
export const ApiCommonErrors = () => ApiErrors([401, 403, 422, 429, 503]);
