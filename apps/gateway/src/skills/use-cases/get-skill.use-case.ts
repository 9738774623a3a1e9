import { Injectable } from '@nestjs/common';
import { SkillDetailResponse, toSkillDetailResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';
import { visibleToCaller } from '../../auth/visible-to-caller';

@Injectable()
export class GetSkill {
  constructor(private readonly skills: SkillRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<SkillDetailResponse> {
    return toSkillDetailResponse(await visibleToCaller(this.skills, caller, userId, id, 'Skill not found'));
  }
}
