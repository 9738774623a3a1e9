import { Injectable } from '@nestjs/common';
import { SkillResponse, toSkillResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';

/** Platform skills, then the organization's and the caller's own, active or not. */
@Injectable()
export class ListSkills {
  constructor(private readonly skills: SkillRepository) {}

  async execute(caller: Caller, userId: string | undefined): Promise<SkillResponse[]> {
    return (await this.skills.listVisible({ orgId: caller.orgId, userId })).map(toSkillResponse);
  }
}
