import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PlatformSkillDefinition, SkillRepository } from '@app/persistence';
import { PLATFORM_SKILL_DOCUMENTS } from './platform/platform-skills';
import { parseSkillDocument } from './skill-document';

const platformSkillId = (name: string) => `parley-${name}`;

/** The shipped skills, parsed (a malformed one fails the start, not a request). */
function platformSkillDefinitions(): PlatformSkillDefinition[] {
  return PLATFORM_SKILL_DOCUMENTS.map((document) => {
    const { frontmatter, body } = parseSkillDocument(document, ['platform']);
    return {
      id: platformSkillId(frontmatter.name),
      name: frontmatter.name,
      displayName: frontmatter.name,
      frontmatter,
      body,
      document,
    };
  });
}

/** Writes the platform skills at start, so every replica and the worker read the same rows. */
@Injectable()
export class PlatformSkillsLoader implements OnApplicationBootstrap {
  private readonly logger = new Logger(PlatformSkillsLoader.name);

  constructor(private readonly skills: SkillRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    const definitions = platformSkillDefinitions();
    await this.skills.upsertPlatform(definitions);
    this.logger.log({ count: definitions.length }, 'platform skills loaded');
  }
}
