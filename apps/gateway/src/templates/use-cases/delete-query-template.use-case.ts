import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { QueryTemplateRepository } from '@app/persistence';

@Injectable()
export class DeleteQueryTemplate {
  constructor(private readonly templates: QueryTemplateRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<void> {
    if (!(await this.templates.delete({ orgId: caller.orgId, userId }, id))) {
      throw new NotFoundError('Query template not found');
    }
  }
}
