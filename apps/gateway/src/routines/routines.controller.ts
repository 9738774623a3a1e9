import { Body, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  CreateRoutineDto,
  RoutineOwnerQuery,
  RoutineResponse,
  ThreadResponse,
  UpdateRoutineDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { StartsReply } from '../admission/admission.guard';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { UuidIdParams } from '../http/id-params';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';
import { CreateRoutine } from './use-cases/create-routine.use-case';
import { GetRoutine } from './use-cases/get-routine.use-case';
import { ListRoutines } from './use-cases/list-routines.use-case';
import { RemoveRoutine } from './use-cases/remove-routine.use-case';
import { RunRoutineNow } from './use-cases/run-routine-now.use-case';
import { UpdateRoutine } from './use-cases/update-routine.use-case';

/** Threads started on a schedule for one end user (CONTRACTS §13); `user_id` is the owner. */
@ServiceApiController('routines', 'routines')
export class RoutinesController {
  constructor(
    private readonly createRoutine: CreateRoutine,
    private readonly listRoutines: ListRoutines,
    private readonly getRoutine: GetRoutine,
    private readonly updateRoutine: UpdateRoutine,
    private readonly removeRoutine: RemoveRoutine,
    private readonly runRoutineNow: RunRoutineNow,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a routine',
    description:
      'Each firing of `schedule` (5-field cron, read in `timezone`) starts one thread exactly as POST /chat ' +
      'would, with `inception: "routine"`, whatever the number of workers. A firing missed while no worker ran ' +
      'runs once when one is back.',
  })
  @ApiOkResponse({ type: RoutineResponse })
  @ApiErrors([400, 404, 413])
  create(@CurrentCaller() caller: Caller, @Body() body: CreateRoutineDto): Promise<RoutineResponse> {
    return this.createRoutine.execute(caller, body);
  }

  @Get()
  @ApiOperation({ summary: "List an end user's routines (newest first)" })
  @ApiOkResponse({ type: [RoutineResponse] })
  list(@CurrentCaller() caller: Caller, @Query() query: RoutineOwnerQuery): Promise<RoutineResponse[]> {
    return this.listRoutines.execute(caller, query.user_id);
  }

  @ReadOneRoute(':id', { summary: 'Get a routine' }, RoutineResponse)
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
  ): Promise<RoutineResponse> {
    return this.getRoutine.execute(caller, query.user_id, params.id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a routine (partial; a new schedule or `active` takes effect at once)' })
  @ApiOkResponse({ type: RoutineResponse })
  @ApiErrors([400, 404, 413])
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
    @Body() body: UpdateRoutineDto,
  ): Promise<RoutineResponse> {
    return this.updateRoutine.execute(caller, query.user_id, params.id, body);
  }

  @DeleteOneRoute(':id', { summary: 'Delete a routine' }, 'Deleted; it fires no more.')
  async remove(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
  ): Promise<void> {
    await this.removeRoutine.execute(caller, query.user_id, params.id);
  }

  @Post(':id/run')
  @HttpCode(200)
  @StartsReply()
  @ApiOperation({ summary: 'Fire a routine now', description: 'Answers the Thread it started.' })
  @ApiOkResponse({ type: ThreadResponse })
  @ApiErrors([404])
  run(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
  ): Promise<ThreadResponse> {
    return this.runRoutineNow.execute(caller, query.user_id, params.id);
  }
}
