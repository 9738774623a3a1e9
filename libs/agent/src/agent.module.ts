import { Global, Module, OnModuleInit } from '@nestjs/common';
import { RunEventWriter } from '@app/run-events';
import { ActiveRuns } from './active-runs';
import { ModelProvider } from './models/model-provider';
import { ReplyFinisher } from './reply-finisher';
import { RunAgentReply } from './run-agent-reply.use-case';
import { RunMetrics } from './run-metrics';
import { RunScheduler } from './run-scheduler';
import { StepLoop } from './run/step-loop';
import { clockToolSource } from './tools/clock.tool';
import { ToolRegistry } from './tools/tool-registry';

const PROVIDERS = [
  ToolRegistry,
  ModelProvider,
  RunEventWriter,
  RunMetrics,
  ActiveRuns,
  RunScheduler,
  ReplyFinisher,
  StepLoop,
  RunAgentReply,
];

/**
 * The agent runtime. Global so that every capability's module can inject the ToolRegistry and register its
 * tools in its own onModuleInit. Needs PersistenceModule, RedisModule and QueuesModule in the app.
 */
@Global()
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class AgentModule implements OnModuleInit {
  constructor(private readonly registry: ToolRegistry) {}

  onModuleInit(): void {
    this.registry.register(clockToolSource);
  }
}
