import { InitialSchema1763800000000 } from './1763800000000-initial-schema';
import { MemoryFiles1763801700000 } from './1763801700000-memory-files';
import { RunCheckpoints1763810000000 } from './1763810000000-run-checkpoints';
import { TemplatesAndSkills1763900000000 } from './1763900000000-templates-and-skills';
import { ConversationFiles1764020000000 } from './1764020000000-conversation-files';
import { DataSources1764200000000 } from './1764200000000-data-sources';
import { MessageDeltaLengths1764300000000 } from './1764300000000-message-delta-lengths';
import { DeploymentSecrets1765100000000 } from './1765100000000-deployment-secrets';
import { RunningRepliesByOrg1765200100000 } from './1765200100000-running-replies-by-org';
import { RunStepDeltas1765400000000 } from './1765400000000-run-step-deltas';
import { IdempotencyKeys1765500000000 } from './1765500000000-idempotency-keys';
import { Webhooks1765600100000 } from './1765600100000-webhooks';
import { Routines1765700000000 } from './1765700000000-routines';
import { StartRunFunction1765800000000 } from './1765800000000-start-run-function';
import { McpCatalogue1765900000000 } from './1765900000000-mcp-catalogue';
import { WorkConservingStart1766100000000 } from './1766100000000-work-conserving-start';
import { RunStreamJournal1766100100000 } from './1766100100000-run-stream-journal';
import { TokenUsagePending1766100200000 } from './1766100200000-token-usage-pending';
import { ThreadCompaction1766110000000 } from './1766110000000-thread-compaction';
import { IdempotencyClaimTokens1766200000000 } from './1766200000000-idempotency-claim-tokens';
import { AiSdkChats1766210000000 } from './1766210000000-ai-sdk-chats';
import { ReplyMetadata1766300000000 } from './1766300000000-reply-metadata';
import { ToolApprovals1766400000000 } from './1766400000000-tool-approvals';
import { ReplyUsage1766500000000 } from './1766500000000-reply-usage';
import { UserBudgets1766500100000 } from './1766500100000-user-budgets';
import { MessageFeedback1766500200000 } from './1766500200000-message-feedback';
import { MessageBranches1766600000000 } from './1766600000000-message-branches';
import { Erasures1766600100000 } from './1766600100000-erasures';
import { AuditEvents1766600200000 } from './1766600200000-audit-events';
import { SummaryUsage1766600500000 } from './1766600500000-summary-usage';
import { UsageDailyShards1766600600000 } from './1766600600000-usage-daily-shards';
import { EndUserMemory1766700000000 } from './1766700000000-end-user-memory';
import { UsageOnEveryEnding1766701000000 } from './1766701000000-usage-on-every-ending';
import { UserBudgetTurns1766701100000 } from './1766701100000-user-budget-turns';
import { ErasureByColumn1766702000000 } from './1766702000000-erasure-by-column';
import { AgentDescription1766704000000 } from './1766704000000-agent-description';
import { RowLevelSecurity1766709000000 } from './1766709000000-row-level-security';
import { MemoryFileWriters1766710000000 } from './1766710000000-memory-file-writers';
import { ModelCalls1766730000000 } from './1766730000000-model-calls';
import { AgentVersions1766740000000 } from './1766740000000-agent-versions';
import { Evals1766740100000 } from './1766740100000-evals';
import { UsageOfModelCalls1766752000000 } from './1766752000000-usage-of-model-calls';
import { BudgetTurnParking1766760000000 } from './1766760000000-budget-turn-parking';
import { EvalItemStates1766761000000 } from './1766761000000-eval-item-states';
import { OneUsageDailyUpsert1766761900000 } from './1766761900000-one-usage-daily-upsert';
import { StartRunRecordsAgentVersion1766770000000 } from './1766770000000-start-run-records-agent-version';

/** Every migration in order; a merged migration is never edited, a change is a new file. */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  MemoryFiles1763801700000,
  RunCheckpoints1763810000000,
  TemplatesAndSkills1763900000000,
  ConversationFiles1764020000000,
  DataSources1764200000000,
  MessageDeltaLengths1764300000000,
  DeploymentSecrets1765100000000,
  RunningRepliesByOrg1765200100000,
  RunStepDeltas1765400000000,
  IdempotencyKeys1765500000000,
  Webhooks1765600100000,
  Routines1765700000000,
  StartRunFunction1765800000000,
  McpCatalogue1765900000000,
  WorkConservingStart1766100000000,
  RunStreamJournal1766100100000,
  TokenUsagePending1766100200000,
  ThreadCompaction1766110000000,
  IdempotencyClaimTokens1766200000000,
  AiSdkChats1766210000000,
  ReplyMetadata1766300000000,
  ToolApprovals1766400000000,
  ReplyUsage1766500000000,
  UserBudgets1766500100000,
  MessageFeedback1766500200000,
  MessageBranches1766600000000,
  Erasures1766600100000,
  AuditEvents1766600200000,
  SummaryUsage1766600500000,
  UsageDailyShards1766600600000,
  EndUserMemory1766700000000,
  UsageOnEveryEnding1766701000000,
  UserBudgetTurns1766701100000,
  ErasureByColumn1766702000000,
  AgentDescription1766704000000,
  RowLevelSecurity1766709000000,
  MemoryFileWriters1766710000000,
  ModelCalls1766730000000,
  AgentVersions1766740000000,
  Evals1766740100000,
  UsageOfModelCalls1766752000000,
  BudgetTurnParking1766760000000,
  EvalItemStates1766761000000,
  OneUsageDailyUpsert1766761900000,
  StartRunRecordsAgentVersion1766770000000,
];
