import { applyDecorators, Controller } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiCommonErrors } from '../http/api-errors';
import { SERVICE_TOKEN_SCHEME } from '../ops/openapi';

/**
 * A controller of the service API at `path`: its operations listed under `tag`, called with the service token
 * (or an end-user token where a route allows it), and answering the errors every call may get.
 */
export const ServiceApiController = (tag: string, path?: string): ClassDecorator =>
  // In the order of the decorators written out above a class, which apply from the bottom up.
  applyDecorators(
    path === undefined ? Controller() : Controller(path),
    ApiCommonErrors(),
    ApiSecurity(SERVICE_TOKEN_SCHEME),
    ApiTags(tag),
  );
