import { Module } from '@nestjs/common';
import { ChatUseCasesModule } from '@app/chat';
import { ApprovalsController } from './approvals.controller';
import { BranchesController } from './branches.controller';
import { ChatController } from './chat.controller';

/** The chat endpoints; their use cases live in libs/chat, repositories, queues and settings in the global modules. */
@Module({
  imports: [ChatUseCasesModule],
  controllers: [ChatController, ApprovalsController, BranchesController],
  // The protocols of CONTRACTS §18 post follow-ups and cancel as the chat routes do.
  exports: [ChatUseCasesModule],
})
export class ChatModule {}
