import { applyDecorators } from '@nestjs/common';
import { ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { SERVICE_TOKEN_SCHEME } from '../ops/openapi';

/*
 * What the protocols' routes (AG-UI, Responses, A2A, MCP) share in the OpenAPI document. Their bodies are each
 * protocol's wire format, described by schema in its own *.openapi.ts, not by the API's DTOs.
 */

/** A protocol's routes: under the protocol's tag, called with a key or an end-user token, and what `more` adds. */
export const ApiProtocolRoutes = (tag: string, ...more: Parameters<typeof applyDecorators>) =>
  applyDecorators(ApiTags(tag), ApiSecurity(SERVICE_TOKEN_SCHEME), ...more);

/** Error answers whose body is the protocol's own error (`schema`), a description by status. */
export const ApiProtocolErrors = (schema: SchemaObject, descriptions: Record<number, string>) =>
  applyDecorators(
    ...Object.entries(descriptions).map(([status, description]) =>
      ApiResponse({
        status: Number(status),
        description,
        content: { 'application/json': { schema } },
      }),
    ),
  );
