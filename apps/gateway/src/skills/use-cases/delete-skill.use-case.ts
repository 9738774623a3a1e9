import { Injectable } from '@nestjs/common';
import { ForbiddenError } from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';
import { visibleToCaller } from '../../auth/visible-to-caller';

/** Deletes a custom skill; a platform skill can only be switched off (`active: false`). */
@Injectable()
export class DeleteSkill {
  constructor(private readonly skills: SkillRepository) {}

  async execute(caller: Caller, userId: string | undefined, id: string): Promise<void> {
    const view = await visibleToCaller(this.skills, caller, userId, id, 'Skill not found');
    if (view.skill.source === 'parley')
      throw new ForbiddenError('Platform skills cannot be deleted; set active to false');
    await this.skills.deleteCustom(caller.orgId, id);
  }
}
