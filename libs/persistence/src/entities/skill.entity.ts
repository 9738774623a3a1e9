import { Entity, PrimaryColumn } from 'typeorm';
import {
  BooleanColumn,
  CreatedAtColumn,
  JsonbColumn,
  TextColumn,
  UpdatedAtColumn,
  UuidColumn,
} from './columns';

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

  @UuidColumn({ name: 'org_id', nullable: true })
  orgId: string | null;

  @TextColumn()
  source: SkillSource;

  @TextColumn()
  name: string;

  @TextColumn({ name: 'display_name' })
  displayName: string;

  @JsonbColumn()
  frontmatter: SkillFrontmatter;

  /** The Markdown instructions after the frontmatter: what `skill_read` gives the model. */
  @TextColumn()
  body: string;

  /** The SKILL.md as it was given (frontmatter and body). */
  @TextColumn()
  document: string;

  @BooleanColumn({ default: true })
  active: boolean;

  @TextColumn({ nullable: true })
  scope: SkillScope | null;

  @TextColumn({ name: 'created_by', nullable: true })
  createdBy: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

/** One organization's `active` and `scope` for a platform skill. */
@Entity('skill_settings')
export class SkillSettingEntity {
  @PrimaryColumn({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @PrimaryColumn({ name: 'skill_id', type: 'text' })
  skillId: string;

  @BooleanColumn({ nullable: true })
  active: boolean | null;

  @TextColumn({ nullable: true })
  scope: SkillScope | null;

  /** End user who last set `scope`; a platform skill made `private` applies to that user only. */
  @TextColumn({ name: 'set_by', nullable: true })
  setBy: string | null;

  @UpdatedAtColumn()
  updatedAt: Date;
}
