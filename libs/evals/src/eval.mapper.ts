import {
  EvalDatasetSummaryResponse,
  EvalItemResponse,
  EvalRunItemResponse,
  EvalRunListItemResponse,
} from '@app/contracts';
import { EvalDataset, EvalItem, EvalRun, EvalRunItem } from '@app/persistence';

export const toDatasetSummary = (dataset: EvalDataset): EvalDatasetSummaryResponse => ({
  id: dataset.id,
  name: dataset.name,
  item_count: dataset.itemCount,
  created_at: dataset.createdAt.toISOString(),
});

export const toItemResponse = (item: EvalItem): EvalItemResponse => ({
  input: item.input,
  expected: item.expected,
  reference: item.reference,
});

export const toRunItemResponse = (item: EvalRunItem): EvalRunItemResponse => ({
  ...toItemResponse(item),
  output: item.output,
  scores: item.scores,
  passed: item.passed,
  reply_id: item.replyId,
  thread_id: item.threadId,
});

export const toRunListItem = (run: EvalRun): EvalRunListItemResponse => ({
  id: run.id,
  dataset_id: run.datasetId,
  agent_id: run.agentId,
  agent_version: run.agentVersion,
  judge_model: run.judgeModel,
  status: run.status,
  created_at: run.createdAt.toISOString(),
  completed_at: run.completedAt?.toISOString() ?? null,
  summary: {
    items: run.summary.items,
    passed: run.summary.passed,
    pass_rate: run.summary.items === 0 ? 0 : run.summary.passed / run.summary.items,
    input_tokens: run.summary.inputTokens,
    output_tokens: run.summary.outputTokens,
  },
});
