import { Injectable } from '@nestjs/common';
import {
  NotFoundError,
  QueryTemplateResponse,
  toQueryTemplateResponse,
  UpdateQueryTemplateDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { QueryTemplateChanges, QueryTemplateRepository } from '@app/persistence';

/** A partial update; `updated_by` becomes the acting end user. */
@Injectable()
export class UpdateQueryTemplate {
  constructor(private readonly templates: QueryTemplateRepository) {}

  async execute(
    caller: Caller,
    userId: string,
    id: string,
    input: UpdateQueryTemplateDto,
  ): Promise<QueryTemplateResponse> {
    const changes: QueryTemplateChanges = {
      name: input.name,
      content: input.content,
      description: input.description,
      metadata: input.metadata,
      iconUri: input.icon_uri,
      iconColor: input.icon_color,
      backgroundColor: input.background_color,
      scope: input.scope,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    const template = await this.templates.update({ orgId: caller.orgId, userId }, id, defined, userId);
    if (!template) throw new NotFoundError('Query template not found');
    return toQueryTemplateResponse(template);
  }
}
