import { Module } from '@nestjs/common';
import { QueryTemplateRepository } from '@app/persistence';
import { TemplatesController } from './templates.controller';
import { CreateQueryTemplate } from './use-cases/create-query-template.use-case';
import { DeleteQueryTemplate } from './use-cases/delete-query-template.use-case';
import { GetQueryTemplate } from './use-cases/get-query-template.use-case';
import { ListQueryTemplates } from './use-cases/list-query-templates.use-case';
import { UpdateQueryTemplate } from './use-cases/update-query-template.use-case';

@Module({
  controllers: [TemplatesController],
  providers: [
    QueryTemplateRepository,
    CreateQueryTemplate,
    ListQueryTemplates,
    GetQueryTemplate,
    UpdateQueryTemplate,
    DeleteQueryTemplate,
  ],
})
export class TemplatesModule {}
