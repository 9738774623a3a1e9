import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { ConflictError, SkillDetailResponse, toSkillDetailResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';
import { parseSkillDocument } from '@app/skills';

/** POST /skills: a `custom` skill, private to its creator until made organization-wide. */
@Injectable()
export class CreateSkill {
  constructor(private readonly skills: SkillRepository) {}

  async execute(
    caller: Caller,
    userId: string,
    upload: { content: string; loc: string[] },
  ): Promise<SkillDetailResponse> {
    const { frontmatter, body } = parseSkillDocument(upload.content, upload.loc);
    if (await this.skills.nameTaken(caller.orgId, frontmatter.name)) {
      throw new ConflictError(`A skill named ${frontmatter.name} already exists`);
    }
    const skill = await this.skills.createCustom({
      id: uuidv7(),
      orgId: caller.orgId,
      name: frontmatter.name,
      displayName: frontmatter.name,
      frontmatter,
      body,
      document: upload.content,
      scope: 'private',
      createdBy: userId,
    });
    return toSkillDetailResponse({
      skill,
      active: skill.active,
      scope: skill.scope,
      updatedAt: skill.updatedAt,
    });
  }
}
