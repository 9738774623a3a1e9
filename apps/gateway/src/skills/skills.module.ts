import { Module } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import { SkillRepository } from '@app/persistence';
import { PlatformSkillsLoader } from '@app/skills';
import { SkillsController } from './skills.controller';
import { CreateSkill } from './use-cases/create-skill.use-case';
import { DeleteSkill } from './use-cases/delete-skill.use-case';
import { GetSkill } from './use-cases/get-skill.use-case';
import { ListSkills } from './use-cases/list-skills.use-case';
import { UpdateSkill } from './use-cases/update-skill.use-case';

@Module({
  imports: [DocumentsModule],
  controllers: [SkillsController],
  providers: [
    SkillRepository,
    PlatformSkillsLoader,
    CreateSkill,
    ListSkills,
    GetSkill,
    UpdateSkill,
    DeleteSkill,
  ],
})
export class SkillsModule {}
