import { Module, OnModuleInit } from '@nestjs/common';
import { ToolRegistry, ToolRegistryModule } from '@app/agent';
import { SkillRepository } from '@app/persistence';
import { PlatformSkillsLoader } from '../platform-skills.loader';
import { SkillReadToolSource } from './skill-read.tool';

/** The worker side of skills: `skill_read` for runs, and the platform skills present even before a gateway starts. */
@Module({
  imports: [ToolRegistryModule],
  providers: [SkillRepository, PlatformSkillsLoader, SkillReadToolSource],
})
export class SkillToolsModule implements OnModuleInit {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly source: SkillReadToolSource,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.source);
  }
}
