import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DATE_TIME, FREE_FORM } from './message.response';

/** API-SPEC 2.11. */
class SkillFrontmatterResponse {
  @ApiProperty({ pattern: '^[a-z0-9-]{1,64}$', example: 'release-notes' })
  name: string;
  @ApiProperty({ example: 'Writes release notes from a list of merged changes.' })
  description: string;
  @ApiPropertyOptional()
  license?: string;
  @ApiPropertyOptional()
  compatibility?: string;
  @ApiPropertyOptional(FREE_FORM)
  metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ type: [String], description: 'allowed-tools of the SKILL.md.' })
  allowed_tools?: string[];
}

export class SkillResponse {
  @ApiProperty({ description: 'The skill_pid of the paths.' })
  id: string;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty(DATE_TIME)
  updated_at: string;
  @ApiProperty({ example: 'Release notes' })
  display_name: string;
  @ApiProperty({
    enum: ['parley', 'custom'],
    description: "parley: the platform's own skills, read-only but for active and scope; custom: uploaded.",
  })
  source: 'parley' | 'custom';
  @ApiProperty()
  active: boolean;
  @ApiProperty({ type: 'string', enum: ['organization', 'private'], nullable: true })
  scope: 'organization' | 'private' | null;
  @ApiProperty({ type: SkillFrontmatterResponse })
  frontmatter: SkillFrontmatterResponse;
}

/** GET /skills/{skill_pid} adds the SKILL.md itself. */
export class SkillDetailResponse extends SkillResponse {
  @ApiProperty({ description: 'The SKILL.md: YAML frontmatter, then Markdown instructions.' })
  content: string;
}

interface SkillView {
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
