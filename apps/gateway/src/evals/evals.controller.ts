import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  CreateEvalDatasetDto,
  EvalDatasetResponse,
  EvalDatasetSummaryResponse,
  EvalRunListItemResponse,
  EvalRunResponse,
  EvalRunStartedResponse,
  ListEvalRunsQuery,
  ListEvalsQuery,
  Page,
  StartEvalRunDto,
} from '@app/contracts';
import {
  CreateEvalDataset,
  DeleteEvalDataset,
  GetEvalDataset,
  GetEvalRun,
  ListEvalDatasets,
  ListEvalRuns,
  StartEvalRun,
} from '@app/evals';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { UuidIdParams } from '../http/id-params';
import { PagedListing } from '../http/paged-listing';
import { DeleteOneRoute, ReadOneRoute } from '../routes/resource-routes';

/**
 * Evaluations (CONTRACTS §23): datasets, and runs of a dataset against a version of an agent, each item answered
 * by the workers as a reply in a thread of `inception: "eval"`. Service keys only.
 */
@ServiceApiController('evals', 'evals')
export class EvalsController {
  constructor(
    private readonly createDataset: CreateEvalDataset,
    private readonly getDataset: GetEvalDataset,
    private readonly listDatasets: ListEvalDatasets,
    private readonly deleteDataset: DeleteEvalDataset,
    private readonly startRun: StartEvalRun,
    private readonly getRun: GetEvalRun,
    private readonly listRuns: ListEvalRuns,
  ) {}

  @Post('datasets')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a dataset',
    description:
      'From `items` (at most 1,000: an input HumanMessage and what its answer is scored on), or from ' +
      "`from_threads`: each thread's first user message is an input and its reply the reference. Exactly one.",
  })
  @ApiOkResponse({ type: EvalDatasetResponse })
  @ApiErrors([400, 413])
  create(@CurrentCaller() caller: Caller, @Body() body: CreateEvalDatasetDto): Promise<EvalDatasetResponse> {
    return this.createDataset.execute(caller.orgId, body);
  }

  @Get('datasets')
  @ApiOperation({
    summary: "List the organization's datasets",
    description: 'Newest first; paged as GET /chat.',
  })
  @PagedListing(EvalDatasetSummaryResponse)
  datasets(
    @CurrentCaller() caller: Caller,
    @Query() query: ListEvalsQuery,
  ): Promise<Page<EvalDatasetSummaryResponse>> {
    return this.listDatasets.execute(caller.orgId, query);
  }

  @ReadOneRoute('datasets/:id', { summary: 'Get a dataset with its items' }, EvalDatasetResponse)
  dataset(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<EvalDatasetResponse> {
    return this.getDataset.execute(caller.orgId, params.id);
  }

  @DeleteOneRoute(
    'datasets/:id',
    { summary: 'Delete a dataset', description: 'Runs made from it keep their items.' },
    'Deleted.',
  )
  async remove(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<void> {
    await this.deleteDataset.execute(caller.orgId, params.id);
  }

  @Post('runs')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Run a dataset against an agent',
    description:
      "The agent's version (`agent_version`, else its latest now) answers every item, several at once, on the " +
      'workers, sharing them fairly with live traffic; `rubric` is graded by `judge_model` (default: the ' +
      "version's model). Follow it with GET /evals/runs/{id}.",
  })
  @ApiAcceptedResponse({ type: EvalRunStartedResponse })
  @ApiErrors([404])
  start(@CurrentCaller() caller: Caller, @Body() body: StartEvalRunDto): Promise<EvalRunStartedResponse> {
    return this.startRun.execute(caller.orgId, body);
  }

  @Get('runs')
  @ApiOperation({ summary: "List an agent's eval runs", description: 'Newest first, with their summaries.' })
  @PagedListing(EvalRunListItemResponse)
  runs(
    @CurrentCaller() caller: Caller,
    @Query() query: ListEvalRunsQuery,
  ): Promise<Page<EvalRunListItemResponse>> {
    return this.listRuns.execute(caller.orgId, query);
  }

  @ReadOneRoute(
    'runs/:id',
    {
      summary: 'Get an eval run',
      description:
        'Its items with their answers, scores and replies, and a summary with the pass rate and tokens.',
    },
    EvalRunResponse,
  )
  run(@CurrentCaller() caller: Caller, @Param() params: UuidIdParams): Promise<EvalRunResponse> {
    return this.getRun.execute(caller.orgId, params.id);
  }
}
