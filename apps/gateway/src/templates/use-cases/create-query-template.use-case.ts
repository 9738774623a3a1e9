import { Injectable } from '@nestjs/common';
import { CreateQueryTemplateDto, QueryTemplateResponse, toQueryTemplateResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { QueryTemplateRepository } from '@app/persistence';

/** POST /agent_execution/query_templates with the defaults of spec 4.7. */
@Injectable()
export class CreateQueryTemplate {
  constructor(private readonly templates: QueryTemplateRepository) {}

  async execute(
    caller: Caller,
    userId: string,
    input: CreateQueryTemplateDto,
  ): Promise<QueryTemplateResponse> {
    const template = await this.templates.create(
      { orgId: caller.orgId, userId },
      {
        createdBy: userId,
        name: input.name,
        content: input.content,
        description: input.description ?? '',
        metadata: input.metadata ?? {},
        iconUri: input.icon_uri ?? '',
        iconColor: input.icon_color ?? '',
        backgroundColor: input.background_color ?? '',
        scope: input.scope ?? 'private',
      },
    );
    return toQueryTemplateResponse(template);
  }
}
