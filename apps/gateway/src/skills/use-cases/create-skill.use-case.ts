import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { ConflictError, SkillDetailResponse, toSkillDetailResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SkillRepository } from '@app/persistence';
import { Settings } from '@app/config';
import { parseUploadedSkillDocument } from '@app/skills';
import { UntrustedParsing } from '@app/documents';

/** POST /skills: a `custom` skill, private to its creator until made organization-wide. */
@Injectable()
export class CreateSkill {
  constructor(
    private readonly skills: SkillRepository,
    private readonly parsing: UntrustedParsing,
    private readonly settings: Settings,
  ) {}

  async execute(
    caller: Caller,
    userId: string,
    upload: { content: string; loc: string[] },
  ): Promise<SkillDetailResponse> {
    const { frontmatter, body } = await parseUploadedSkillDocument(
      upload.content,
      upload.loc,
      this.parsing,
      this.settings.parseTimeoutMs,
    );
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
