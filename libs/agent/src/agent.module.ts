import { DynamicModule, Module, ModuleMetadata, OnModuleInit, Provider } from '@nestjs/common';
import { RunEventWriter } from '@app/run-events';
import { ActiveRuns } from './run/active-runs';
import { ModelProvider } from './models/model-provider';
import { ReplyFinisher } from './run/reply-finisher';
import { RunAgentReply } from './run/run-agent-reply.use-case';
import { RunMetrics } from './run/run-metrics';
import { RunScheduler } from './run/run-scheduler';
import { RunStartWaitWindow } from './run/run-start-wait-window';
import { StepLoop } from './run/step-loop';
import { ApprovalGate } from './run/approval-gate';
import { ContextCompaction } from './run/context-compaction';
import { UserBudgetTurn } from './run/user-budget-turn';
import { StreamJournal } from './run/stream-journal';
import { Guardrails } from './guardrails/guardrails';
import { clockToolSource } from './tools/clock.tool';
import { ToolRegistry } from './tools/tool-registry';
import { ToolRegistryModule } from './tools/tool-registry.module';

const PROVIDERS = [
  ModelProvider,
  RunEventWriter,
  RunMetrics,
  RunStartWaitWindow,
  ActiveRuns,
  RunScheduler,
  ReplyFinisher,
  StepLoop,
  ApprovalGate,
  ContextCompaction,
  UserBudgetTurn,
  StreamJournal,
  Guardrails,
  RunAgentReply,
];

/**
 * The agent runtime, for the worker's agent-run module. Capabilities register their tools through
 * ToolRegistryModule, which they import themselves. Needs PersistenceModule and RedisModule in the app.
 */
@Module({})
export class AgentModule implements OnModuleInit {
  constructor(private readonly registry: ToolRegistry) {}

  /** `adapters` provide what the runtime declares and the app implements: ReplyWaker and ModelAttachments. */
  static forRoot(adapters: { imports: ModuleMetadata['imports']; providers: Provider[] }): DynamicModule {
    return {
      module: AgentModule,
      imports: [ToolRegistryModule, ...(adapters.imports ?? [])],
      providers: [...PROVIDERS, ...adapters.providers],
      exports: [ToolRegistryModule, ...PROVIDERS, ...adapters.providers],
    };
  }

  onModuleInit(): void {
    this.registry.register(clockToolSource);
  }
}
