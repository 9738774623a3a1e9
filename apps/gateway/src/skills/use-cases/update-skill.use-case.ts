import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { ForbiddenError, SkillResponse, toSkillResponse, UpdateSkillDto } from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { Db, endUserHash, recordAudit, SkillRepository, VisibleSkill } from '@app/persistence';
import { visibleToCaller } from '../../auth/visible-to-caller';

/**
 * PUT /skills/{skill_pid} (spec 4.8). A null or absent field stays as it is. On a platform skill, `active` and
 * `scope` are the organization's own choice; anything else needs `x-internal-token` equal to INTERNAL_TOKEN. A
 * change of scope (who may see the skill) is recorded in the audit log, in the same transaction.
 */
@Injectable()
export class UpdateSkill {
  constructor(
    private readonly db: DataSource,
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
    const view = await visibleToCaller(this.skills, caller, userId, id, 'Skill not found');
    const scope = { orgId: caller.orgId, userId };
    const active = input.active ?? undefined;
    const skillScope = input.scope ?? undefined;
    const displayName = input.display_name ?? undefined;
    await this.db.transaction(async (tx) => {
      if (view.skill.source === 'parley') {
        if (displayName !== undefined && displayName !== view.skill.displayName) {
          if (!this.internalTokenValid(internalToken)) {
            throw new ForbiddenError(
              'Only active and scope of a platform skill can be changed without the internal token',
            );
          }
          await this.skills.updatePlatformDisplayName(id, displayName, tx);
        }
        if (active !== undefined || skillScope !== undefined) {
          await this.skills.setPlatformSettings(
            caller.orgId,
            id,
            { active, scope: skillScope, setBy: userId },
            tx,
          );
        }
      } else {
        const changes = {
          displayName: displayName !== view.skill.displayName ? displayName : undefined,
          active: active !== view.skill.active ? active : undefined,
          scope: skillScope !== view.skill.scope ? skillScope : undefined,
        };
        // updated_at says when the skill last changed: a PUT that changes nothing leaves it.
        if (Object.values(changes).some((value) => value !== undefined))
          await this.skills.updateCustom(scope, id, changes, tx);
      }
      if (skillScope !== undefined && skillScope !== view.scope) {
        await this.recordScopeChange(tx, caller, userId, view, skillScope);
      }
    });
    return toSkillResponse(await visibleToCaller(this.skills, caller, userId, id, 'Skill not found'));
  }

  private recordScopeChange(
    tx: Db,
    caller: Caller,
    userId: string | undefined,
    view: VisibleSkill,
    to: string,
  ): Promise<void> {
    return recordAudit(tx, {
      orgId: caller.orgId,
      actor: auditActorOf(caller),
      action: 'skill.scope_changed',
      target: { type: 'skill', id: view.skill.id },
      details: {
        name: view.skill.name,
        from: view.scope,
        to,
        // The end user the request named, by hash only (see endUserHash).
        ...(userId !== undefined && { end_user: endUserHash(caller.orgId, userId) }),
      },
    });
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
