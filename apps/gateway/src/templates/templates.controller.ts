import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  CreateQueryTemplateDto,
  EndUserQuery,
  RequiredEndUserQuery,
  ListQueryTemplatesQuery,
  QueryTemplateResponse,
  UpdateQueryTemplateDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { endUserOf, requireEndUser } from '../http/end-user';
import { UuidIdParams } from '../http/id-params';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';
import { CreateQueryTemplate } from './use-cases/create-query-template.use-case';
import { DeleteQueryTemplate } from './use-cases/delete-query-template.use-case';
import { GetQueryTemplate } from './use-cases/get-query-template.use-case';
import { ListQueryTemplates } from './use-cases/list-query-templates.use-case';
import { UpdateQueryTemplate } from './use-cases/update-query-template.use-case';

/** Query templates (API-SPEC 4.7, CONTRACTS §10). */
@ServiceApiController('query templates', 'agent_execution/query_templates')
export class TemplatesController {
  constructor(
    private readonly createTemplate: CreateQueryTemplate,
    private readonly listTemplates: ListQueryTemplates,
    private readonly getTemplate: GetQueryTemplate,
    private readonly updateTemplate: UpdateQueryTemplate,
    private readonly deleteTemplate: DeleteQueryTemplate,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a query template' })
  @ApiOkResponse({ type: QueryTemplateResponse })
  @ApiErrors([400, 413])
  create(
    @CurrentCaller() caller: Caller,
    @Query() query: RequiredEndUserQuery,
    @Body() body: CreateQueryTemplateDto,
  ): Promise<QueryTemplateResponse> {
    return this.createTemplate.execute(caller, requireEndUser(query, body), body);
  }

  @Get()
  @ApiOperation({ summary: "List the caller's private templates and the organization's" })
  @ApiOkResponse({ type: [QueryTemplateResponse] })
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListQueryTemplatesQuery,
  ): Promise<QueryTemplateResponse[]> {
    return this.listTemplates.execute(caller, query);
  }

  @ReadOneRoute(':id', { summary: 'Get a query template' }, QueryTemplateResponse)
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: EndUserQuery,
  ): Promise<QueryTemplateResponse> {
    return this.getTemplate.execute(caller, endUserOf(query), params.id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a query template (partial)' })
  @ApiOkResponse({ type: QueryTemplateResponse })
  @ApiErrors([400, 404, 413])
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RequiredEndUserQuery,
    @Body() body: UpdateQueryTemplateDto,
  ): Promise<QueryTemplateResponse> {
    return this.updateTemplate.execute(caller, requireEndUser(query, body), params.id, body);
  }

  @DeleteOneRoute(':id', { summary: 'Delete a query template' }, 'Deleted.')
  async remove(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: EndUserQuery,
  ): Promise<void> {
    await this.deleteTemplate.execute(caller, endUserOf(query), params.id);
  }
}
