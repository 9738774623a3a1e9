import { Module } from '@nestjs/common';
import { ChatUseCasesModule } from '@app/chat';
import { ProtocolRepliesModule } from '../protocol-replies.module';
import { A2aController } from './a2a.controller';
import { A2aTasks } from './a2a-tasks';

/** A2A v1.0 at /a2a/agents/{agent_id} (CONTRACTS §22). */
@Module({
  imports: [ProtocolRepliesModule, ChatUseCasesModule],
  controllers: [A2aController],
  providers: [A2aTasks],
})
export class A2aModule {}
