import { applyDecorators, Delete, Get, HttpCode, Type } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiOperationOptions } from '@nestjs/swagger';
import { ApiErrors } from '../http/api-errors';

/*
 * Routes on one resource of the caller's scope, each with its OpenAPI description: what every such route of the
 * API answers, written once. Their decorators apply in the order of the stacks they stand for (from the bottom up).
 */

/** GET of one resource: `type`, or 404 for one that does not exist or that the caller may not see. */
export const ReadOneRoute = (path: string, operation: ApiOperationOptions, type: Type<unknown>) =>
  applyDecorators(ApiErrors([404]), ApiOkResponse({ type }), ApiOperation(operation), Get(path));

/** DELETE of one resource: 204 without a body, `done` saying what happened, or 404 as for a read. */
export const DeleteOneRoute = (path: string, operation: ApiOperationOptions, done: string) =>
  applyDecorators(
    ApiErrors([404]),
    ApiNoContentResponse({ description: done }),
    ApiOperation(operation),
    HttpCode(204),
    Delete(path),
  );
