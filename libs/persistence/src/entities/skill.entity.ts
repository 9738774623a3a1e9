import { Column, Entity, PrimaryColumn } from 'typeorm';

type SkillSource = 'parley' | 'custom';
export type SkillScope = 'organization' | 'private';

/** The frontmatter of a SKILL.md, as responses show it (`allowed-tools` becomes `allowed_tools`). */
export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  allowed_tools?: string[];
}

/**
 * A skill: custom ones belong to an organization; platform ones (`source: parley`) have no organization and
 * are written from the shipped SKILL.md files at start. An organization's choice of `active` and `scope` for a
 * platform skill lives in SkillSettingEntity.
 */
@Entity('skills')
export class SkillEntity {
  /** Public id used in paths: a UUID for custom skills, `parley-<name>` for platform ones. */
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'org_id', type: 'uuid', nullable: true })
  orgId: string | null;

  @Column({ type: 'text' })
  source: SkillSource;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'display_name', type: 'text' })
  displayName: string;

  @Column({ type: 'jsonb' })
  frontmatter: SkillFrontmatter;

  /** The Markdown instructions after the frontmatter: what `skill_read` gives the model. */
  @Column({ type: 'text' })
  body: string;

  /** The SKILL.md as it was given (frontmatter and body). */
  @Column({ type: 'text' })
  document: string;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ type: 'text', nullable: true })
  scope: SkillScope | null;

  @Column({ name: 'created_by', type: 'text', nullable: true })
  createdBy: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** One organization's `active` and `scope` for a platform skill. */
@Entity('skill_settings')
export class SkillSettingEntity {
  @PrimaryColumn({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @PrimaryColumn({ name: 'skill_id', type: 'text' })
  skillId: string;

  @Column({ type: 'boolean', nullable: true })
  active: boolean | null;

  @Column({ type: 'text', nullable: true })
  scope: SkillScope | null;

  /** End user who last set `scope`; a platform skill made `private` applies to that user only. */
  @Column({ name: 'set_by', type: 'text', nullable: true })
  setBy: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
