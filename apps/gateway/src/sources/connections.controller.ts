import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ConnectionResponse, EndUserQuery, RequiredEndUserQuery } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { endUserOf, requireEndUser } from '../http/end-user';
import { UuidIdParams } from '../http/id-params';
import { ReadOneRoute } from '../routes/resource-routes';
import { CreateConnectionDto } from './dto/connection.dto';
import { CheckConnection } from './use-cases/check-connection.use-case';
import { CreateConnection } from './use-cases/create-connection.use-case';
import { DeleteConnection } from './use-cases/delete-connection.use-case';
import { GetConnection } from './use-cases/get-connection.use-case';
import { ListConnections } from './use-cases/list-connections.use-case';

/** Connections to stores (CONTRACTS §9). */
@ServiceApiController('sources', 'dc/connections')
export class ConnectionsController {
  constructor(
    private readonly createConnection: CreateConnection,
    private readonly listConnections: ListConnections,
    private readonly getConnection: GetConnection,
    private readonly deleteConnection: DeleteConnection,
    private readonly checkConnection: CheckConnection,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a connection',
    description: 'Credentials are stored encrypted, never returned.',
  })
  @ApiOkResponse({ type: ConnectionResponse })
  @ApiErrors([400, 413])
  create(
    @CurrentCaller() caller: Caller,
    @Query() query: RequiredEndUserQuery,
    @Body() body: CreateConnectionDto,
  ): Promise<ConnectionResponse> {
    return this.createConnection.execute(caller, requireEndUser(query, body), body);
  }

  @Get()
  @ApiOperation({ summary: 'List connections' })
  @ApiOkResponse({ type: [ConnectionResponse] })
  list(@CurrentCaller() caller: Caller, @Query() query: EndUserQuery): Promise<ConnectionResponse[]> {
    return this.listConnections.execute(caller, endUserOf(query));
  }

  @ReadOneRoute(':id', { summary: 'Get a connection' }, ConnectionResponse)
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: EndUserQuery,
  ): Promise<ConnectionResponse> {
    return this.getConnection.execute(caller, endUserOf(query), params.id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a connection' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors([404, 409], { 409: 'A live source uses the connection.' })
  async remove(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: EndUserQuery,
  ): Promise<void> {
    await this.deleteConnection.execute(caller, endUserOf(query), params.id);
  }

  @Post(':id/check')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check the credentials',
    description:
      'Refreshes or tests them; sets checked_at, and inoperative with status error when they fail.',
  })
  @ApiOkResponse({ type: ConnectionResponse })
  @ApiErrors([404])
  check(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: EndUserQuery,
  ): Promise<ConnectionResponse> {
    return this.checkConnection.execute(caller, endUserOf(query), params.id);
  }
}
