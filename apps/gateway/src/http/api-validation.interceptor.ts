import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  OnModuleInit,
  Type,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import {
  InvalidInputError,
  isRequestDto,
  LocRoot,
  ModelSchema,
  modelSchema,
  nulIssue,
  validateWithSchema,
  ValidationIssue,
} from '@app/contracts';
import { UnreadableBody } from './json-body';

/** The parts of a request a DTO may describe, in the order FastAPI reports their errors. */
const PARTS: { paramtype: RouteParamtypes; root: LocRoot; field: 'params' | 'query' | 'body' }[] = [
  { paramtype: RouteParamtypes.PARAM, root: 'path', field: 'params' },
  { paramtype: RouteParamtypes.QUERY, root: 'query', field: 'query' },
  { paramtype: RouteParamtypes.BODY, root: 'body', field: 'body' },
];

interface RouteArgument {
  index: number;
  data?: unknown;
}

/** The DTO class of each part of a handler's request that has one (`@Body() dto: X`, `@Query() q: Y`). */
function requestDtos(
  controller: Type,
  handlerName: string,
): { part: (typeof PARTS)[number]; target: new () => object }[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handlerName) ?? {}) as Record<
    string,
    RouteArgument
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handlerName) ??
    []) as unknown[];
  const found: { part: (typeof PARTS)[number]; target: new () => object }[] = [];
  for (const part of PARTS) {
    const argument = Object.entries(args).find(
      ([key, value]) => key.startsWith(`${part.paramtype}:`) && value.data === undefined,
    )?.[1];
    const target = argument ? types[argument.index] : undefined;
    if (isRequestDto(target)) found.push({ part, target });
  }
  return found;
}

/**
 * Builds the schema of every route's DTOs when the gateway starts, so a DTO with a rule the Pydantic layer does
 * not check stops the start with its class and field named, rather than passing requests unvalidated.
 */
@Injectable()
export class RequestDtoCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      for (const handlerName of this.scanner.getAllMethodNames(controller.prototype)) {
        for (const { target } of requestDtos(controller, handlerName)) modelSchema(target);
      }
    }
  }
}

/**
 * Validates the path, the query and the body of a request against the handler's DTOs with Pydantic's rules
 * (`validateRequest` in libs/contracts) and answers all their errors in one 422 (API-SPEC 2.13, CONTRACTS §3),
 * as FastAPI does. It runs before the handler's arguments are built, so it replaces each part with the
 * validated DTO instance: the handler sees converted values and no unknown field. Parts without a DTO (a
 * protocol's raw body, a single `@Param('id')`) pass as they are, but never with a NUL character in any string or
 * key: PostgreSQL's text and jsonb cannot hold it, so this one check keeps every hand-read part from a 500. A body
 * that could not be read at all is answered here too, after the guards (UnreadableBody).
 */
@Injectable()
export class ApiValidationInterceptor implements NestInterceptor {
  /** The schema of each handler's DTOs, read from its metadata once, not on every request. */
  private readonly schemasByHandler = new WeakMap<
    object,
    { part: (typeof PARTS)[number]; schema: ModelSchema }[]
  >();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest & Record<string, unknown>>();
    if (request.body instanceof UnreadableBody) throw request.body.error;
    const issues: ValidationIssue[] = [];
    const validated: Partial<Record<'params' | 'query' | 'body', unknown>> = {};
    const handler = context.getHandler();
    let schemas = this.schemasByHandler.get(handler);
    if (!schemas) {
      schemas = requestDtos(context.getClass(), handler.name).map(({ part, target }) => ({
        part,
        schema: modelSchema(target),
      }));
      this.schemasByHandler.set(handler, schemas);
    }
    for (const part of PARTS) {
      const schema = schemas.find((dto) => dto.part === part)?.schema;
      if (!schema) {
        const nul = nulIssue(request[part.field], [part.root]);
        if (nul) issues.push(nul);
        continue;
      }
      const result = validateWithSchema(schema, request[part.field], part.root);
      if (result.ok) validated[part.field] = result.value;
      else issues.push(...result.issues);
    }
    if (issues.length > 0) throw new InvalidInputError(issues);
    Object.assign(request, validated);
    return next.handle();
  }
}
