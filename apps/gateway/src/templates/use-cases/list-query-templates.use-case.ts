import { Injectable } from '@nestjs/common';
import { ListQueryTemplatesQuery, QueryTemplateResponse, toQueryTemplateResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { QueryTemplateRepository } from '@app/persistence';

/** The organization's templates and the caller's private ones, newest first. */
@Injectable()
export class ListQueryTemplates {
  constructor(private readonly templates: QueryTemplateRepository) {}

  async execute(caller: Caller, query: ListQueryTemplatesQuery): Promise<QueryTemplateResponse[]> {
    const templates = await this.templates.listVisible(
      { orgId: caller.orgId, userId: query.user_id },
      { limit: query.limit ?? 50, offset: query.offset ?? 0 },
    );
    return templates.map(toQueryTemplateResponse);
  }
}
