import { Module } from '@nestjs/common';
import { AgentManagementModule } from '@app/agent-management';
import { AgentsController } from './agents.controller';

@Module({ imports: [AgentManagementModule], controllers: [AgentsController] })
export class AgentsModule {}
