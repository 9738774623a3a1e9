import { Injectable } from '@nestjs/common';
import { QueryTemplateResponse, toQueryTemplateResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { QueryTemplateRepository } from '@app/persistence';
import { visibleToCaller } from '../../auth/visible-to-caller';

@Injectable()
export class GetQueryTemplate {
  constructor(private readonly templates: QueryTemplateRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<QueryTemplateResponse> {
    return toQueryTemplateResponse(
      await visibleToCaller(this.templates, caller, userId, id, 'Query template not found'),
    );
  }
}
