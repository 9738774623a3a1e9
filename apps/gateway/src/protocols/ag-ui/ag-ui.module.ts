import { Module } from '@nestjs/common';
import { ChatUseCasesModule } from '@app/chat';
import { ProtocolRepliesModule } from '../protocol-replies.module';
import { AgUiController } from './ag-ui.controller';
import { RunAgUiAgent } from './run-ag-ui-agent.use-case';

/** AG-UI 1.0 at /ag-ui/agents/{agent_id} (CONTRACTS §22). */
@Module({
  imports: [ProtocolRepliesModule, ChatUseCasesModule],
  controllers: [AgUiController],
  providers: [RunAgUiAgent],
})
export class AgUiModule {}
