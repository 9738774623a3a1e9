import { Injectable } from '@nestjs/common';
import {
  cursorRowId,
  EvalRunListItemResponse,
  EvalRunResponse,
  EvalRunStartedResponse,
  InvalidInputError,
  ListEvalRunsQuery,
  NotFoundError,
  Page,
  pageOf,
  StartEvalRunDto,
  valueErrorIssue,
} from '@app/contracts';
import { AgentRepository, AgentVersionRepository, EvalRepository } from '@app/persistence';
import { toRunItemResponse, toRunListItem } from '../eval.mapper';
import { DATASET_NOT_FOUND } from './eval-datasets.use-case';

const RUN_NOT_FOUND = 'Eval run not found';
const LISTING_DEFAULT_LIMIT = 20;

/**
 * POST /evals/runs and `evals:run`: a run of every item of a dataset with one version of an agent (the latest
 * when none is named), fixed now so a change of the agent during the run changes nothing of it. The workers run
 * it (EvalRunner); the answer is only its id.
 */
@Injectable()
export class StartEvalRun {
  constructor(
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
    private readonly evals: EvalRepository,
  ) {}

  async execute(orgId: string, input: StartEvalRunDto): Promise<EvalRunStartedResponse> {
    const scope = { orgId };
    if (!(await this.agents.findActive(orgId, input.agent_id))) throw new NotFoundError('Agent not found');
    const agentVersion = input.agent_version ?? (await this.versions.latest(scope, input.agent_id));
    const version =
      agentVersion === null ? null : await this.versions.find(scope, input.agent_id, agentVersion);
    if (!version) {
      throw new InvalidInputError([
        valueErrorIssue(
          ['body', 'agent_version'],
          input.agent_version ?? null,
          'the agent has no such version',
        ),
      ]);
    }
    const id = await this.evals.createRun(scope, {
      datasetId: input.dataset_id,
      agentId: input.agent_id,
      agentVersion: version.version,
      // The rubric's judge by default is the evaluated version's own model.
      judgeModel: input.judge_model ?? version.agent.model,
    });
    if (!id) throw new NotFoundError(DATASET_NOT_FOUND);
    return { id };
  }
}

@Injectable()
export class GetEvalRun {
  constructor(private readonly evals: EvalRepository) {}

  async execute(orgId: string, id: string): Promise<EvalRunResponse> {
    const found = await this.evals.findRun({ orgId }, id);
    if (!found) throw new NotFoundError(RUN_NOT_FOUND);
    return { ...toRunListItem(found.run), items: found.items.map(toRunItemResponse) };
  }
}

/** GET /evals/runs?agent_id=: an agent's runs, newest first, with their summaries. */
@Injectable()
export class ListEvalRuns {
  constructor(private readonly evals: EvalRepository) {}

  async execute(orgId: string, query: ListEvalRunsQuery): Promise<Page<EvalRunListItemResponse>> {
    const limit = query.limit ?? LISTING_DEFAULT_LIMIT;
    const rows = await this.evals.listRuns({ orgId }, query.agent_id, {
      beforeId: query.before === undefined ? undefined : cursorRowId(query.before),
      limit,
    });
    return pageOf(rows, limit, (row) => row.id, toRunListItem);
  }
}
