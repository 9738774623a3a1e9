import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { InvalidInputError, UsageQuery, UsageResponse, UsageRow, valueErrorIssue } from '@app/contracts';
import { Caller } from '@app/identity';
import { UsageRepository, UsageSums } from '@app/persistence';

const TOKENS_PER_MTOK = 1_000_000;

/** GET /usage (CONTRACTS §20): the organization's replies summed by the grouping, priced by MODEL_PRICES. */
@Injectable()
export class GetUsage {
  constructor(
    private readonly usage: UsageRepository,
    private readonly settings: Settings,
  ) {}

  async execute(caller: Caller, query: UsageQuery): Promise<UsageResponse> {
    const today = new Date().toISOString().slice(0, 10);
    const sums = await this.usage.sums({
      orgId: caller.orgId,
      from: existingDay(query.from, 'from') ?? `${today.slice(0, 8)}01`,
      to: existingDay(query.to, 'to') ?? today,
      userId: query.user_id,
      agentId: query.agent_id,
      groupBy: query.group_by,
    });
    // Sums come by key and model, ordered by key: a key's models are neighbours.
    const rows: UsageRow[] = [];
    let last: { key: string | null; row: UsageRow } | null = null;
    for (const sum of sums) {
      if (!last || last.key !== sum.key) {
        last = { key: sum.key, row: this.emptyRow(query, sum.key) };
        rows.push(last.row);
      }
      last.row.replies += sum.replies;
      last.row.input_tokens += sum.inputTokens;
      last.row.output_tokens += sum.outputTokens;
      last.row.tool_calls += sum.toolCalls;
      last.row.cached_input_tokens += sum.cachedInputTokens;
      last.row.cost_usd += this.cost(sum);
    }
    return { rows };
  }

  private emptyRow(query: UsageQuery, key: string | null): UsageRow {
    return {
      ...(query.group_by === 'user' && { user_id: key }),
      ...(query.group_by === 'agent' && { agent_id: key }),
      ...(query.group_by === 'day' && { day: key! }),
      ...(query.group_by === 'model' && { model: key }),
      replies: 0,
      input_tokens: 0,
      output_tokens: 0,
      tool_calls: 0,
      cached_input_tokens: 0,
      cost_usd: 0,
    };
  }

  private cost(sum: UsageSums): number {
    const price = sum.model === null ? undefined : this.settings.modelPrices[sum.model];
    if (!price) return 0;
    // Cached input is part of the input tokens, priced at its own rate when MODEL_PRICES gives one (§24).
    const cached = sum.cachedInputTokens;
    const cachedPrice = price.cached_input_per_mtok ?? price.input_per_mtok;
    return (
      ((sum.inputTokens - cached) * price.input_per_mtok +
        cached * cachedPrice +
        sum.outputTokens * price.output_per_mtok) /
      TOKENS_PER_MTOK
    );
  }
}

/** A YYYY-MM-DD the DTO let through, refused (422) when the calendar has no such day. */
function existingDay(day: string | undefined, field: 'from' | 'to'): string | undefined {
  if (day === undefined) return undefined;
  if (new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) {
    throw new InvalidInputError([valueErrorIssue(['query', field], day, 'must be a day of the calendar')]);
  }
  return day;
}
