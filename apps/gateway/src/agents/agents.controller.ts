import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  ArchiveAgent,
  CreateAgent,
  GetAgent,
  GetAgentVersion,
  ListAgents,
  ListAgentVersions,
  RestoreAgentVersion,
  UpdateAgent,
} from '@app/agent-management';
import {
  AgentListResponse,
  AgentResponse,
  AgentVersionParams,
  AgentVersionResponse,
  CreateAgentDto,
  ListAgentVersionsQuery,
  Page,
  UpdateAgentDto,
} from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { UuidIdParams } from '../http/id-params';
import { PagedListing } from '../http/paged-listing';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';

/** The organization's agents (CONTRACTS §15); `mcp` env and header values are write-only. */
@ServiceApiController('agents', 'agents')
export class AgentsController {
  constructor(
    private readonly createAgent: CreateAgent,
    private readonly listAgents: ListAgents,
    private readonly getAgent: GetAgent,
    private readonly updateAgent: UpdateAgent,
    private readonly archiveAgent: ArchiveAgent,
    private readonly listVersions: ListAgentVersions,
    private readonly getVersion: GetAgentVersion,
    private readonly restoreVersion: RestoreAgentVersion,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create an agent',
    description:
      'mcp items are {name, url, headers?} (a remote server on a public address) or {name, server, env?} (a ' +
      "stdio server of the operator's catalogue); an item with command or args is 422.",
  })
  @ApiOkResponse({ type: AgentResponse })
  @ApiErrors([400, 413])
  create(@CurrentCaller() caller: Caller, @Body() body: CreateAgentDto): Promise<AgentResponse> {
    return this.createAgent.execute(auditActorOf(caller), caller.orgId, body);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's agents" })
  @ApiOkResponse({ type: AgentListResponse })
  list(@CurrentCaller() caller: Caller): Promise<AgentListResponse> {
    return this.listAgents.execute(caller.orgId);
  }

  @ReadOneRoute(':id', { summary: 'Get an agent' }, AgentResponse)
  get(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<AgentResponse> {
    return this.getAgent.execute(caller.orgId, params.id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update an agent (partial)' })
  @ApiOkResponse({ type: AgentResponse })
  @ApiErrors([400, 404, 413])
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Body() body: UpdateAgentDto,
  ): Promise<AgentResponse> {
    return this.updateAgent.execute(auditActorOf(caller), caller.orgId, params.id, body);
  }

  @DeleteOneRoute(
    ':id',
    {
      summary: 'Archive an agent',
      description: 'Its messages then show agent: "ARCHIVED", and POST /chat with it is 404 Agent not found.',
    },
    'Archived.',
  )
  async archive(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<void> {
    await this.archiveAgent.execute(auditActorOf(caller), caller.orgId, params.id);
  }

  @Get(':id/versions')
  @ApiOperation({
    summary: "List an agent's versions",
    description:
      'Newest first (CONTRACTS §23): every create, change and restore stored one, with the whole configuration. ' +
      'A full page carries an `x-next-cursor` header: pass it as `before` for the next page.',
  })
  @PagedListing(AgentVersionResponse)
  @ApiErrors([404])
  versions(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: ListAgentVersionsQuery,
  ): Promise<Page<AgentVersionResponse>> {
    return this.listVersions.execute(caller.orgId, params.id, query);
  }

  @ReadOneRoute(':id/versions/:version', { summary: 'Get one version of an agent' }, AgentVersionResponse)
  version(
    @CurrentCaller() caller: Caller,
    @Param() params: AgentVersionParams,
  ): Promise<AgentVersionResponse> {
    return this.getVersion.execute(caller.orgId, params.id, params.version);
  }

  @Post(':id/versions/:version/restore')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Restore a version of an agent',
    description:
      "The agent takes that version's configuration again, stored as a new version, which is answered.",
  })
  @ApiOkResponse({ type: AgentVersionResponse })
  @ApiErrors([404])
  restore(
    @CurrentCaller() caller: Caller,
    @Param() params: AgentVersionParams,
  ): Promise<AgentVersionResponse> {
    return this.restoreVersion.execute(auditActorOf(caller), caller.orgId, params.id, params.version);
  }
}
