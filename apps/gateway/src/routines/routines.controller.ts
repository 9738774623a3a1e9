import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  CreateRoutineDto,
  RoutineOwnerQuery,
  RoutineResponse,
  ThreadResponse,
  UpdateRoutineDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ApiCommonErrors, ApiErrors } from '../http/api-errors';
import { UuidIdParams } from '../http/id-params';
import { RoutineUseCases } from './routine.use-cases';

/** Threads started on a schedule for one end user (CONTRACTS §13); `user_id` is the owner. */
@ApiTags('routines')
@ApiSecurity('service-token')
@ApiCommonErrors()
@Controller('routines')
export class RoutinesController {
  constructor(private readonly routines: RoutineUseCases) {}

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
    return this.routines.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: "List an end user's routines (newest first)" })
  @ApiOkResponse({ type: [RoutineResponse] })
  list(@CurrentCaller() caller: Caller, @Query() query: RoutineOwnerQuery): Promise<RoutineResponse[]> {
    return this.routines.list(caller, query.user_id);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a routine' })
  @ApiOkResponse({ type: RoutineResponse })
  @ApiErrors([404])
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
  ): Promise<RoutineResponse> {
    return this.routines.get(caller, query.user_id, params.id);
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
    return this.routines.update(caller, query.user_id, params.id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a routine' })
  @ApiNoContentResponse({ description: 'Deleted; it fires no more.' })
  @ApiErrors([404])
  async remove(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
  ): Promise<void> {
    await this.routines.remove(caller, query.user_id, params.id);
  }

  @Post(':id/run')
  @HttpCode(200)
  @ApiOperation({ summary: 'Fire a routine now', description: 'Answers the Thread it started.' })
  @ApiOkResponse({ type: ThreadResponse })
  @ApiErrors([404])
  run(
    @CurrentCaller() caller: Caller,
    @Param() params: UuidIdParams,
    @Query() query: RoutineOwnerQuery,
  ): Promise<ThreadResponse> {
    return this.routines.runNow(caller, query.user_id, params.id);
  }
}
