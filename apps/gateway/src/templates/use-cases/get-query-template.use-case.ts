import { Injectable } from '@nestjs/common';
import { NotFoundError, QueryTemplateResponse, toQueryTemplateResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { QueryTemplateRepository } from '@app/persistence';

@Injectable()
export class GetQueryTemplate {
  constructor(private readonly templates: QueryTemplateRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<QueryTemplateResponse> {
    const template = await this.templates.findVisible({ orgId: caller.orgId, userId }, id);
    if (!template) throw new NotFoundError('Query template not found');
    return toQueryTemplateResponse(template);
  }
}
