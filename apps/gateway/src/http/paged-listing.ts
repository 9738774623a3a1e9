import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  Type,
  UseInterceptors,
} from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { Page } from '@app/contracts';

const NEXT_CURSOR_HEADER = 'x-next-cursor';

/** Sends a route's `Page` as the spec's plain array, the next page's cursor beside it in a header. */
@Injectable()
class PagedListingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler<Page<unknown>>): Observable<unknown[]> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      map((page) => {
        if (page.nextCursor) void reply.header(NEXT_CURSOR_HEADER, page.nextCursor);
        return page.items;
      }),
    );
  }
}

/**
 * A listing paged like GET /chat: newest first, the route returns a `Page` (see `pageOf`) and the client gets the
 * items as the body and, when the page is full, an `x-next-cursor` header to pass as `before` for the next page
 * (our extension: the body stays a plain array). Documents the 200 with that header.
 */
export const PagedListing = (type: Type<unknown>, description?: string) =>
  applyDecorators(
    UseInterceptors(PagedListingInterceptor),
    ApiOkResponse({
      type: [type],
      description,
      headers: {
        [NEXT_CURSOR_HEADER]: {
          description: 'Present when the page is full: the `before` of the next page.',
          schema: { type: 'string' },
        },
      },
    }),
  );
