import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ArchiveAgent, CreateAgent, GetAgent, ListAgents, UpdateAgent } from '@app/agent-management';
import { AgentResponse, CreateAgentDto, UpdateAgentDto } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { UuidIdParams } from '../http/id-params';

/** The organization's agents (CONTRACTS §15); `mcp` env and header values are write-only. */
@ApiTags('agents')
@ApiSecurity('service-token')
@Controller('agents')
export class AgentsController {
  constructor(
    private readonly createAgent: CreateAgent,
    private readonly listAgents: ListAgents,
    private readonly getAgent: GetAgent,
    private readonly updateAgent: UpdateAgent,
    private readonly archiveAgent: ArchiveAgent,
  ) {}

  @Post()
  @HttpCode(200)
  create(@CurrentCaller() caller: Caller, @Body() body: CreateAgentDto): Promise<AgentResponse> {
    return this.createAgent.execute(caller.orgId, body);
  }

  @Get()
  list(@CurrentCaller() caller: Caller): Promise<{ agents: AgentResponse[] }> {
    return this.listAgents.execute(caller.orgId);
  }

  @Get(':id')
  get(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<AgentResponse> {
    return this.getAgent.execute(caller.orgId, params.id);
  }

  @Put(':id')
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Body() body: UpdateAgentDto,
  ): Promise<AgentResponse> {
    return this.updateAgent.execute(caller.orgId, params.id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  async archive(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<void> {
    await this.archiveAgent.execute(caller.orgId, params.id);
  }
}
