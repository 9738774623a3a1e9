import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { EndUserQuery, RequiredEndUserQuery, SourceDocumentResponse, SourceResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { IdempotentWrite } from '@app/persistence';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { endUserOf, requireEndUser } from '../http/end-user';
import { IdempotentWriteOf } from '../idempotency/idempotency.interceptor';
import { KEY_IN_USE_409, SafelyRetried } from '../idempotency/safely-retried.decorator';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';
import { AddDocumentsDto, CreateSourceDto, SourcePidParams, UpdateSourceDto } from './dto/source.dto';
import { AddSourceDocuments } from './use-cases/add-source-documents.use-case';
import { ArchiveSource } from './use-cases/archive-source.use-case';
import { CreateSource } from './use-cases/create-source.use-case';
import { GetSource } from './use-cases/get-source.use-case';
import { ListSourceDocuments } from './use-cases/list-source-documents.use-case';
import { ListSources } from './use-cases/list-sources.use-case';
import { RequestSourceSync } from './use-cases/request-source-sync.use-case';
import { UpdateSource } from './use-cases/update-source.use-case';

/** Data sources (API-SPEC 4.6, CONTRACTS §9). */
@ServiceApiController('sources', 'dc/sources')
export class SourcesController {
  constructor(
    private readonly createSource: CreateSource,
    private readonly updateSource: UpdateSource,
    private readonly listSources: ListSources,
    private readonly getSource: GetSource,
    private readonly archiveSource: ArchiveSource,
    private readonly requestSync: RequestSourceSync,
    private readonly listDocuments: ListSourceDocuments,
    private readonly addDocuments: AddSourceDocuments,
  ) {}

  @Post()
  @HttpCode(200)
  @SafelyRetried()
  @ApiOperation({ summary: 'Add a data source' })
  @ApiOkResponse({ type: SourceResponse })
  @ApiErrors([400, 404, 409, 413], {
    409: KEY_IN_USE_409,
  })
  create(
    @CurrentCaller() caller: Caller,
    @Query() query: RequiredEndUserQuery,
    @Body() body: CreateSourceDto,
    @IdempotentWriteOf() idempotency?: IdempotentWrite,
  ): Promise<SourceResponse> {
    return this.createSource.execute(caller, requireEndUser(query, body), body, idempotency);
  }

  @Get()
  @ApiOperation({ summary: 'List the sources the caller may see, newest first' })
  @ApiOkResponse({ type: [SourceResponse] })
  list(@CurrentCaller() caller: Caller, @Query() query: EndUserQuery): Promise<SourceResponse[]> {
    return this.listSources.execute(caller, endUserOf(query));
  }

  @ReadOneRoute(':source_pid', { summary: 'Get a source' }, SourceResponse)
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: SourcePidParams,
    @Query() query: EndUserQuery,
  ): Promise<SourceResponse> {
    return this.getSource.execute(caller, endUserOf(query), params.source_pid);
  }

  @Put(':source_pid')
  @ApiOperation({ summary: 'Update a source' })
  @ApiOkResponse({ type: SourceResponse })
  @ApiErrors([400, 404, 413])
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: SourcePidParams,
    @Query() query: EndUserQuery,
    @Body() body: UpdateSourceDto,
  ): Promise<SourceResponse> {
    return this.updateSource.execute(caller, endUserOf(query, body), params.source_pid, body);
  }

  @DeleteOneRoute(
    ':source_pid',
    { summary: 'Archive a source', description: 'Sets archived_at; its documents leave search.' },
    'Archived.',
  )
  async remove(
    @CurrentCaller() caller: Caller,
    @Param() params: SourcePidParams,
    @Query() query: EndUserQuery,
  ): Promise<void> {
    await this.archiveSource.execute(caller, endUserOf(query), params.source_pid);
  }

  @Post(':source_pid/sync')
  @HttpCode(202)
  @ApiOperation({ summary: 'Sync a source', description: 'A sync already queued or running is not doubled.' })
  @ApiAcceptedResponse({ type: SourceResponse })
  @ApiErrors([404])
  sync(
    @CurrentCaller() caller: Caller,
    @Param() params: SourcePidParams,
    @Query() query: EndUserQuery,
  ): Promise<SourceResponse> {
    return this.requestSync.execute(caller, endUserOf(query), params.source_pid);
  }

  @Get(':source_pid/documents')
  @ApiOperation({ summary: "List a source's documents" })
  @ApiOkResponse({ type: [SourceDocumentResponse] })
  @ApiErrors([404])
  documents(
    @CurrentCaller() caller: Caller,
    @Param() params: SourcePidParams,
    @Query() query: EndUserQuery,
  ): Promise<SourceDocumentResponse[]> {
    return this.listDocuments.execute(caller, endUserOf(query), params.source_pid);
  }

  @Post(':source_pid/documents')
  @HttpCode(202)
  @ApiOperation({ summary: 'Add uploaded files to a draganddrop source' })
  @ApiAcceptedResponse({ type: [SourceDocumentResponse] })
  @ApiErrors([400, 404, 413])
  add(
    @CurrentCaller() caller: Caller,
    @Param() params: SourcePidParams,
    @Query() query: RequiredEndUserQuery,
    @Body() body: AddDocumentsDto,
  ): Promise<SourceDocumentResponse[]> {
    return this.addDocuments.execute(caller, requireEndUser(query, body), params.source_pid, body);
  }
}
