import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SkillEntity, SkillScope, SkillSettingEntity } from '../entities';
import { entityFromJson } from './entity-rows';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db, Scope } from './scope';
import { withTenant } from './tenant-scope';

/** A skill as one organization and end user see it: platform skills carry the organization's own settings. */
export interface VisibleSkill {
  skill: SkillEntity;
  active: boolean;
  scope: SkillScope | null;
  updatedAt: Date;
}

export type PlatformSkillDefinition = Pick<
  SkillEntity,
  'id' | 'name' | 'displayName' | 'frontmatter' | 'body' | 'document'
>;

/**
 * Platform skills with the organization's settings for them, and the organization's custom skills the end user
 * may see ($1 organization, $2 end user or null), in one statement: every run and every listing asks it.
 */
const VISIBLE_SKILLS = preparedStatement({
  name: 'skills_visible',
  text: `SELECT to_jsonb(s) AS skill, to_jsonb(ss) AS setting
         FROM skills s LEFT JOIN skill_settings ss ON ss.skill_id = s.id AND ss.org_id = $1
         WHERE s.source = 'parley'
            OR (s.org_id = $1 AND (s.scope = 'organization' OR ($2::text IS NOT NULL AND s.created_by = $2)))
         ORDER BY CASE WHEN s.source = 'parley' THEN s.name END, s.created_at DESC`,
});

/**
 * Skills. Visible to a caller: every platform skill (unless the organization made it private to another end
 * user), the organization's `organization` skills, and the caller's own `private` ones.
 */
@Injectable()
export class SkillRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Writes the shipped platform skills; an operator's display name survives a restart. A gateway and a worker
   * starting together write the same rows: one at a time (a transaction-scoped advisory lock), since `ON CONFLICT
   * (id)` arbitrates only the id, and two first inserts of one skill raced into its unique name instead.
   */
  // crosses tenants: platform skills are no organization's (org_id NULL), and only the owner writes them
  async upsertPlatform(definitions: PlatformSkillDefinition[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('parley_platform_skills'))`);
      for (const definition of definitions) await this.upsertPlatformSkill(tx, definition);
    });
  }

  private async upsertPlatformSkill(tx: Db, definition: PlatformSkillDefinition): Promise<void> {
    await tx.query(
      `INSERT INTO skills (id, org_id, source, name, display_name, frontmatter, body, document, active, scope)
         VALUES ($1, NULL, 'parley', $2, $3, $4, $5, $6, true, NULL)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, frontmatter = EXCLUDED.frontmatter,
           body = EXCLUDED.body, document = EXCLUDED.document`,
      [
        definition.id,
        definition.name,
        definition.displayName,
        definition.frontmatter,
        definition.body,
        definition.document,
      ],
    );
  }

  async listVisible(scope: Scope): Promise<VisibleSkill[]> {
    const rows = await runPreparedAsTenant<{
      skill: Record<string, unknown>;
      setting: Record<string, unknown> | null;
    }>(this.db, scope, VISIBLE_SKILLS, [scope.orgId, scope.userId || null]);
    const skills = rows.map((row) => entityFromJson(this.db, SkillEntity, row.skill));
    const settingOf = new Map(
      rows
        .filter((row) => row.setting !== null)
        .map((row) => {
          const setting = entityFromJson(this.db, SkillSettingEntity, row.setting!);
          return [setting.skillId, setting];
        }),
    );
    // In the statement's order: platform skills by name, then custom ones newest first.
    const platform = skills.filter((skill) => skill.source === 'parley');
    const custom = skills.filter((skill) => skill.source !== 'parley');
    const platformVisible = platform
      .map((skill) => this.withSettings(skill, settingOf.get(skill.id)))
      .filter((view) => this.platformVisibleTo(view, settingOf.get(view.skill.id), scope.userId));
    return [
      ...platformVisible,
      ...custom.map((skill) => ({
        skill,
        active: skill.active,
        scope: skill.scope,
        updatedAt: skill.updatedAt,
      })),
    ];
  }

  async findVisible(scope: Scope, id: string): Promise<VisibleSkill | null> {
    const visible = await this.listVisible(scope);
    return visible.find((view) => view.skill.id === id) ?? null;
  }

  async createCustom(
    values: Pick<
      SkillEntity,
      'id' | 'orgId' | 'name' | 'displayName' | 'frontmatter' | 'body' | 'document' | 'scope' | 'createdBy'
    > & { orgId: string },
  ): Promise<SkillEntity> {
    return withTenant(this.db, values, (tx) => {
      const repository = tx.getRepository(SkillEntity);
      return repository.save(repository.create({ ...values, source: 'custom', active: true }));
    });
  }

  /** Whether a custom skill of that name exists in the organization, or a platform skill has it. */
  async nameTaken(orgId: string, name: string): Promise<boolean> {
    // The policy shows platform skills (org_id NULL) to every organization, as this statement asks.
    const count = await withTenant(this.db, { orgId }, (tx) =>
      tx
        .getRepository(SkillEntity)
        .createQueryBuilder('s')
        .where('s.name = :name', { name })
        .andWhere('(s.org_id = :orgId OR s.org_id IS NULL)', { orgId })
        .getCount(),
    );
    return count > 0;
  }

  async updateCustom(
    scope: Pick<Scope, 'orgId'>,
    id: string,
    changes: Partial<Pick<SkillEntity, 'displayName' | 'active' | 'scope'>>,
    db: Db = this.db.manager,
  ): Promise<void> {
    await withTenant(db, scope, (tx) =>
      tx
        .getRepository(SkillEntity)
        .update({ id, orgId: scope.orgId, source: 'custom' }, { ...changes, updatedAt: new Date() }),
    );
  }

  // crosses tenants: a platform skill is no organization's (org_id NULL); the internal token gates its name
  async updatePlatformDisplayName(id: string, displayName: string, db: Db = this.db.manager): Promise<void> {
    await db
      .getRepository(SkillEntity)
      .update({ id, source: 'parley' }, { displayName, updatedAt: new Date() });
  }

  /** One organization's `active` / `scope` for a platform skill; fields left undefined keep their value. */
  async setPlatformSettings(
    orgId: string,
    skillId: string,
    changes: { active?: boolean; scope?: SkillScope; setBy?: string },
    db: Db = this.db.manager,
  ): Promise<void> {
    await withTenant(db, { orgId }, (tx) =>
      tx.query(
        `INSERT INTO skill_settings (org_id, skill_id, active, scope, set_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (org_id, skill_id) DO UPDATE SET
         active = COALESCE(EXCLUDED.active, skill_settings.active),
         scope = COALESCE(EXCLUDED.scope, skill_settings.scope),
         set_by = CASE WHEN EXCLUDED.scope IS NULL THEN skill_settings.set_by ELSE EXCLUDED.set_by END,
         updated_at = now()`,
        [
          orgId,
          skillId,
          changes.active ?? null,
          changes.scope ?? null,
          changes.scope ? (changes.setBy ?? null) : null,
        ],
      ),
    );
  }

  async deleteCustom(orgId: string, id: string): Promise<void> {
    await withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(SkillEntity).delete({ id, orgId, source: 'custom' }),
    );
  }

  private withSettings(skill: SkillEntity, setting: SkillSettingEntity | undefined): VisibleSkill {
    return {
      skill,
      active: setting?.active ?? skill.active,
      scope: setting?.scope ?? skill.scope,
      updatedAt: setting && setting.updatedAt > skill.updatedAt ? setting.updatedAt : skill.updatedAt,
    };
  }

  private platformVisibleTo(
    view: VisibleSkill,
    setting: SkillSettingEntity | undefined,
    userId?: string | null,
  ): boolean {
    return view.scope !== 'private' || !setting?.setBy || setting.setBy === userId;
  }
}
