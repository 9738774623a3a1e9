import { Injectable } from '@nestjs/common';
import safeRegex from 'safe-regex2';
import {
  CreateEvalDatasetDto,
  cursorRowId,
  EvalDatasetResponse,
  EvalDatasetSummaryResponse,
  InvalidInputError,
  ListEvalsQuery,
  NotFoundError,
  Page,
  pageOf,
  ValidationIssue,
  valueErrorIssue,
} from '@app/contracts';
import { endUserHash, EvalItem, EvalRepository } from '@app/persistence';
import { toDatasetSummary, toItemResponse } from '../eval.mapper';

export const DATASET_NOT_FOUND = 'Dataset not found';
const LISTING_DEFAULT_LIMIT = 20;

/**
 * POST /evals/datasets: from `items`, or from recorded threads (`from_threads`: each thread's first user message
 * is an input, the reply it got the reference). Exactly one of the two; bad input is 422 at its place.
 */
@Injectable()
export class CreateEvalDataset {
  constructor(private readonly evals: EvalRepository) {}

  async execute(orgId: string, input: CreateEvalDatasetDto): Promise<EvalDatasetResponse> {
    if ((input.items === undefined) === (input.from_threads === undefined)) {
      throw new InvalidInputError([
        valueErrorIssue(['body'], null, 'give exactly one of items and from_threads'),
      ]);
    }
    const items = input.items ? itemsOf(input) : await this.recorded(orgId, input.from_threads!);
    const dataset = await this.evals.createDataset({ orgId }, input.name, items);
    return { ...toDatasetSummary(dataset), items: items.map(toItemResponse) };
  }

  private async recorded(orgId: string, threadIds: string[]): Promise<EvalItem[]> {
    const exchanges = await this.evals.firstExchanges({ orgId }, threadIds);
    const missing = threadIds.flatMap((id, index) =>
      exchanges.has(id)
        ? []
        : [valueErrorIssue(['body', 'from_threads', index], id, 'no thread with an answered first message')],
    );
    if (missing.length > 0) throw new InvalidInputError(missing);
    return threadIds.map((id) => {
      const exchange = exchanges.get(id)!;
      return {
        input: exchange.input,
        expected: null,
        reference: exchange.reply,
        ...(exchange.userId !== null && { sourceUserHash: endUserHash(orgId, exchange.userId) }),
      };
    });
  }
}

/** The items as stored; a regular expression that does not compile, or an attachment, is 422 at its place. */
function itemsOf(input: CreateEvalDatasetDto): EvalItem[] {
  const issues: ValidationIssue[] = [];
  const items = input.items!.map((item, index): EvalItem => {
    const at = ['body', 'items', index];
    if (item.input.file_ids?.length) {
      issues.push(
        valueErrorIssue([...at, 'input', 'file_ids'], item.input.file_ids, 'an item cannot attach files'),
      );
    }
    const regex = item.expected?.regex;
    if (regex !== undefined) {
      const problem = regexProblem(regex);
      if (problem) issues.push(valueErrorIssue([...at, 'expected', 'regex'], regex, problem));
    }
    return {
      input: plain(item.input),
      expected: item.expected ? plain(item.expected) : null,
      reference: null,
    };
  });
  if (issues.length > 0) throw new InvalidInputError(issues);
  return items;
}

/**
 * Why a pattern may not be a `regex` scorer: it does not compile, or it can backtrack without bound (nested
 * repetition), which would hold a worker's event loop while it scores.
 */
function regexProblem(pattern: string): string | null {
  try {
    new RegExp(pattern);
  } catch (error) {
    return (error as Error).message;
  }
  return safeRegex(pattern) ? null : 'the pattern repeats a repetition, which can take exponential time';
}

/** A validated DTO as the JSON it came as (no class instance, no undefined field). */
const plain = <T>(value: T): Record<string, string> =>
  JSON.parse(JSON.stringify(value)) as Record<string, string>;

@Injectable()
export class GetEvalDataset {
  constructor(private readonly evals: EvalRepository) {}

  async execute(orgId: string, id: string): Promise<EvalDatasetResponse> {
    const found = await this.evals.findDataset({ orgId }, id);
    if (!found) throw new NotFoundError(DATASET_NOT_FOUND);
    return { ...toDatasetSummary(found.dataset), items: found.items.map(toItemResponse) };
  }
}

@Injectable()
export class ListEvalDatasets {
  constructor(private readonly evals: EvalRepository) {}

  async execute(orgId: string, query: ListEvalsQuery): Promise<Page<EvalDatasetSummaryResponse>> {
    const limit = query.limit ?? LISTING_DEFAULT_LIMIT;
    const rows = await this.evals.listDatasets(
      { orgId },
      { beforeId: query.before === undefined ? undefined : cursorRowId(query.before), limit },
    );
    return pageOf(rows, limit, (row) => row.id, toDatasetSummary);
  }
}

@Injectable()
export class DeleteEvalDataset {
  constructor(private readonly evals: EvalRepository) {}

  async execute(orgId: string, id: string): Promise<void> {
    if (!(await this.evals.deleteDataset({ orgId }, id))) throw new NotFoundError(DATASET_NOT_FOUND);
  }
}
