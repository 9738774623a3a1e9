import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { Settings } from '@app/config';
import {
  ForbiddenError,
  NotFoundError,
  SkillResponse,
  toSkillResponse,
  UpdateSkillDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';

/**
 * PUT /skills/{skill_pid} (spec 4.8). A null or absent field stays as it is. On a platform skill, `active` and
 * `scope` are the organization's own choice; anything else needs `x-internal-token` equal to INTERNAL_TOKEN.
 */
@Injectable()
export class UpdateSkill {
  constructor(
    private readonly skills: SkillRepository,
    private readonly settings: Settings,
  ) {}

  async execute(
    caller: Caller,
    userId: string | undefined,
    id: string,
    input: UpdateSkillDto,
    internalToken?: string,
  ): Promise<SkillResponse> {
    const scope = { orgId: caller.orgId, userId };
    const view = await this.skills.findVisible(scope, id);
    if (!view) throw new NotFoundError('Skill not found');
    const active = input.active ?? undefined;
    const skillScope = input.scope ?? undefined;
    const displayName = input.display_name ?? undefined;
    if (view.skill.source === 'parley') {
      if (displayName !== undefined && displayName !== view.skill.displayName) {
        if (!this.internalTokenValid(internalToken)) {
          throw new ForbiddenError(
            'Only active and scope of a platform skill can be changed without the internal token',
          );
        }
        await this.skills.updatePlatformDisplayName(id, displayName);
      }
      if (active !== undefined || skillScope !== undefined) {
        await this.skills.setPlatformSettings(caller.orgId, id, { active, scope: skillScope, setBy: userId });
      }
    } else {
      const changes = {
        displayName: displayName !== view.skill.displayName ? displayName : undefined,
        active: active !== view.skill.active ? active : undefined,
        scope: skillScope !== view.skill.scope ? skillScope : undefined,
      };
      // updated_at says when the skill last changed: a PUT that changes nothing leaves it.
      if (Object.values(changes).some((value) => value !== undefined))
        await this.skills.updateCustom(id, changes);
    }
    const updated = await this.skills.findVisible(scope, id);
    if (!updated) throw new NotFoundError('Skill not found');
    return toSkillResponse(updated);
  }

  /** Constant-time check; with no INTERNAL_TOKEN configured no token is right. */
  private internalTokenValid(given: string | undefined): boolean {
    const expected = this.settings.internalToken;
    if (!expected || !given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
