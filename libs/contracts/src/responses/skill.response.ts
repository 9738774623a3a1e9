/** API-SPEC 2.11. */
export interface SkillFrontmatterResponse {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  allowed_tools?: string[];
}

export interface SkillResponse {
  id: string;
  created_at: string;
  updated_at: string;
  display_name: string;
  source: 'parley' | 'custom';
  active: boolean;
  scope: 'organization' | 'private' | null;
  frontmatter: SkillFrontmatterResponse;
}

/** GET /skills/{skill_pid} adds the SKILL.md itself. */
export interface SkillDetailResponse extends SkillResponse {
  content: string;
}

export interface SkillView {
  skill: {
    id: string;
    createdAt: Date;
    displayName: string;
    source: 'parley' | 'custom';
    frontmatter: SkillFrontmatterResponse;
    document: string;
  };
  active: boolean;
  scope: 'organization' | 'private' | null;
  updatedAt: Date;
}

export function toSkillResponse(view: SkillView): SkillResponse {
  return {
    id: view.skill.id,
    created_at: view.skill.createdAt.toISOString(),
    updated_at: view.updatedAt.toISOString(),
    display_name: view.skill.displayName,
    source: view.skill.source,
    active: view.active,
    scope: view.scope,
    frontmatter: view.skill.frontmatter,
  };
}

export function toSkillDetailResponse(view: SkillView): SkillDetailResponse {
  return { ...toSkillResponse(view), content: view.skill.document };
}
