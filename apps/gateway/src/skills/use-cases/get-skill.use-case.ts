import { Injectable } from '@nestjs/common';
import { NotFoundError, SkillDetailResponse, toSkillDetailResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';

@Injectable()
export class GetSkill {
  constructor(private readonly skills: SkillRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<SkillDetailResponse> {
    const view = await this.skills.findVisible({ orgId: caller.orgId, userId }, id);
    if (!view) throw new NotFoundError('Skill not found');
    return toSkillDetailResponse(view);
  }
}
